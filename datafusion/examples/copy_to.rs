//! `cargo run --release --example copy_to [rows] [rounds]`: writes a decimal- and
//! UUID-heavy table with `COPY TO` on a stock DataFusion context and on one
//! with parquet-flba registered, checks the two files are identical, and
//! prints both times (several interleaved rounds; min and median).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use datafusion::error::Result;

/// The columns written: UUIDs, four decimals (three FLBA widths and one
/// INT32), Float16 and the row number.
const SELECT: &str = "SELECT row, id, price, amount, big, small, half FROM t";

#[tokio::main]
async fn main() -> Result<()> {
    let rows: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("rows: a number"))
        .unwrap_or(1 << 20);
    let per_batch = 8192;
    let data = common::batches(rows.div_ceil(per_batch), per_batch);
    let stock = common::context(false, 1, &data)?;
    let ours = common::context(true, 1, &data)?;
    let dir = common::scratch("copy_to-example");
    println!(
        "COPY ({SELECT}) TO '<dir>/<name>.parquet' STORED AS PARQUET\n{} rows in {} batches, target_partitions = 1",
        data.iter().map(|b| b.num_rows()).sum::<usize>(),
        data.len()
    );

    let rounds: usize = std::env::args()
        .nth(2)
        .map(|a| a.parse().expect("rounds: a number"))
        .unwrap_or(7);
    let (mut stock_times, mut our_times) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        stock_times.push(copy(&stock, &dir, &format!("stock{round}")).await?);
        our_times.push(copy(&ours, &dir, &format!("flba{round}")).await?);
        let a = std::fs::read(dir.join(format!("stock{round}.parquet")))?;
        let b = std::fs::read(dir.join(format!("flba{round}.parquet")))?;
        assert!(a == b, "round {round}: the files differ");
        if round == 0 {
            println!("files identical: {} bytes", a.len());
        }
    }
    let (s, o) = (summary(&stock_times), summary(&our_times));
    println!(
        "stock DataFusion: min {:>8.1} ms  median {:>8.1} ms",
        s.0, s.1
    );
    println!(
        "parquet-flba:     min {:>8.1} ms  median {:>8.1} ms",
        o.0, o.1
    );
    println!("speed-up (median): {:.2}x", s.1 / o.1);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

async fn copy(
    ctx: &datafusion::prelude::SessionContext,
    dir: &std::path::Path,
    name: &str,
) -> Result<Duration> {
    let sql = format!(
        "COPY ({SELECT}) TO '{}/{name}.parquet' STORED AS PARQUET",
        dir.display()
    );
    let start = Instant::now();
    ctx.sql(&sql).await?.collect().await?;
    Ok(start.elapsed())
}

/// (min, median, max) in milliseconds.
fn summary(times: &[Duration]) -> (f64, f64, f64) {
    let mut times = times.to_vec();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
    )
}
