//! `cargo run --release --example ballista_copy [rows] [rounds]` (in
//! `datafusion/`): starts two in-process Ballista clusters (scheduler and
//! executor talking gRPC over localhost), one stock and one prepared by
//! `parquet_flba_ballista::prepare`, writes a decimal- and UUID-heavy table
//! with `COPY TO` on each, checks the files are identical, and prints both
//! times (several interleaved rounds; min and median).

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

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
    let rounds: usize = std::env::args()
        .nth(2)
        .map(|a| a.parse().expect("rounds: a number"))
        .unwrap_or(5);
    let per_batch = 8192;
    let data = common::batches(rows.div_ceil(per_batch), per_batch);
    let dir = common::scratch("ballista_copy-example");
    let input = dir.join("t.arrow");
    support::write_ipc(&input, &data);
    let stock = support::standalone(false).await;
    let flba = support::standalone(true).await;
    support::register(&stock.ctx, "t", &input).await;
    support::register(&flba.ctx, "t", &input).await;
    let total = data.iter().map(|b| b.num_rows()).sum::<usize>();
    println!(
        "COPY ({SELECT}) TO '<dir>/<name>.parquet' STORED AS PARQUET\n\
         {total} rows in {} batches (Arrow IPC file), on two in-process Ballista 55 clusters: \
         1 scheduler + 1 executor each, target_partitions = 1",
        data.len()
    );

    let (mut stock_times, mut our_times) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        stock_times.push(copy(&stock, &dir, &format!("stock{round}"), total).await?);
        our_times.push(copy(&flba, &dir, &format!("flba{round}"), total).await?);
        let a = std::fs::read(dir.join(format!("stock{round}.parquet")))?;
        let b = std::fs::read(dir.join(format!("flba{round}.parquet")))?;
        let identical = a == b;
        if round == 0 {
            println!(
                "files identical: {} ({} bytes)",
                if identical { "yes" } else { "NO" },
                a.len()
            );
        }
        assert!(identical, "round {round}: the files differ");
    }
    let (s, o) = (summary(&stock_times), summary(&our_times));
    println!(
        "stock Ballista:            min {:>8.1} ms  median {:>8.1} ms",
        s.0, s.1
    );
    println!(
        "Ballista + parquet-flba:   min {:>8.1} ms  median {:>8.1} ms",
        o.0, o.1
    );
    println!("speed-up (median): {:.2}x", s.1 / o.1);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Runs the `COPY` on `cluster`, checks the sink its executor ran and the
/// `rows` it wrote, and returns the time the client waited.
async fn copy(
    cluster: &support::Cluster,
    dir: &std::path::Path,
    name: &str,
    rows: usize,
) -> Result<Duration> {
    let sql = format!(
        "COPY ({SELECT}) TO '{}/{name}.parquet' STORED AS PARQUET",
        dir.display()
    );
    let start = Instant::now();
    let ran = support::run(&cluster.ctx, &sql).await?;
    let took = start.elapsed();
    support::assert_sink(&ran, cluster.decoded.is_some(), rows);
    Ok(took)
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
