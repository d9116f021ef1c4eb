//! `cargo run --release --example copy_to [rows] [rounds] [all]
//! [compression=<codec>] [floor]`: writes a decimal- and UUID-heavy table (with
//! `all`: every column of the table, its Int64, two Utf8, a list and a
//! struct too; with `compression=uncompressed`, say, another codec than
//! DataFusion's default `zstd(3)` for every sink; with `floor`, the same
//! COPY to Arrow IPC too, which encodes nothing) with `COPY TO` on a stock
//! DataFusion context, on one
//! with parquet-flba registered (its defaults: the parallel path on its
//! threaded engine) and on one with `parquet_flba.threads = 1` (DataFusion's
//! layout of one task per column), checks the files are identical, and
//! prints the wall times and the sink's `elapsed_compute` (several
//! interleaved rounds; min and median).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use datafusion::error::Result;

/// The columns written: UUIDs, four decimals (three FLBA widths and one
/// INT32), Float16 and the row number.
const SELECT: &str = "SELECT row, id, price, amount, big, small, half FROM t";
/// Every column of the table.
const ALL: &str = "SELECT * FROM t";

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
    let layout = common::context(true, 1, &data)?;
    layout
        .sql("SET parquet_flba.threads = 1")
        .await?
        .collect()
        .await?;
    let dir = common::scratch("copy_to-example");
    let extra: Vec<String> = std::env::args().skip(3).collect();
    let select = match extra.iter().any(|a| a == "all") {
        true => ALL,
        false => SELECT,
    };
    // `compression=<codec>` (DataFusion's names: uncompressed, snappy,
    // zstd(3), ...) on every context: the default is zstd(3).
    for codec in extra.iter().filter_map(|a| a.strip_prefix("compression=")) {
        for ctx in [&stock, &ours, &layout] {
            let set = format!("SET datafusion.execution.parquet.compression = '{codec}'");
            ctx.sql(&set).await?.collect().await?;
        }
        println!("compression: {codec}");
    }
    println!(
        "COPY ({select}) TO '<dir>/<name>.parquet' STORED AS PARQUET\n{} rows in {} batches, target_partitions = 1",
        data.iter().map(|b| b.num_rows()).sum::<usize>(),
        data.len()
    );

    let rounds: usize = std::env::args()
        .nth(2)
        .map(|a| a.parse().expect("rounds: a number"))
        .unwrap_or(7);
    let sinks = [
        ("stock DataFusion", &stock),
        ("parquet-flba", &ours),
        ("parquet-flba, threads = 1", &layout),
    ];
    let mut times = vec![Vec::new(); sinks.len()];
    let mut computes = vec![Vec::new(); sinks.len()];
    // `floor`: the same COPY to Arrow IPC on the stock context, a floor
    // for any Parquet sink (the scan, the plan, the file's bytes).
    let floor = extra.iter().any(|a| a == "floor");
    let mut floors = Vec::new();
    for round in 0..rounds {
        if floor {
            floors.push(
                copy_as(&stock, select, &dir, &format!("floor-{round}"), "ARROW")
                    .await?
                    .0,
            );
        }
        for (i, (_, ctx)) in sinks.iter().enumerate() {
            let (wall, compute) = copy(ctx, select, &dir, &format!("w{i}-{round}")).await?;
            times[i].push(wall);
            computes[i].push(compute);
        }
        let a = std::fs::read(dir.join(format!("w0-{round}.parquet")))?;
        for (i, (name, _)) in sinks.iter().enumerate().skip(1) {
            let b = std::fs::read(dir.join(format!("w{i}-{round}.parquet")))?;
            assert!(a == b, "round {round}: the files differ ({name})");
        }
        if round == 0 {
            println!("files identical: {} bytes", a.len());
        }
        // Each round's files go before the next round: kept, they pile up
        // in the page cache (several GB over a run), and each new file
        // pays for memory the kernel must find first.
        for i in 0..sinks.len() {
            std::fs::remove_file(dir.join(format!("w{i}-{round}.parquet")))?;
        }
        if floor {
            std::fs::remove_file(dir.join(format!("floor-{round}.arrow")))?;
        }
    }
    let stock_median = summary(&times[0]).1;
    for (i, (name, _)) in sinks.iter().enumerate() {
        let (min, median, _) = summary(&times[i]);
        let (_, compute, _) = summary(&computes[i]);
        println!(
            "{name:<26} min {min:>8.1} ms  median {median:>8.1} ms  elapsed_compute (median) {compute:>8.1} ms  stock / this {:.2}x",
            stock_median / median
        );
    }
    if floor {
        let (min, median, _) = summary(&floors);
        println!(
            "{:<26} min {min:>8.1} ms  median {median:>8.1} ms  (STORED AS ARROW: no Parquet encoding)",
            "floor"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Runs the COPY; its wall time and the sink's `elapsed_compute`.
async fn copy(
    ctx: &datafusion::prelude::SessionContext,
    select: &str,
    dir: &std::path::Path,
    name: &str,
) -> Result<(Duration, Duration)> {
    copy_as(ctx, select, dir, name, "PARQUET").await
}

/// [`copy`] to a file of `format` (`PARQUET`, `ARROW`).
async fn copy_as(
    ctx: &datafusion::prelude::SessionContext,
    select: &str,
    dir: &std::path::Path,
    name: &str,
    format: &str,
) -> Result<(Duration, Duration)> {
    let ext = format.to_lowercase();
    let sql = format!(
        "COPY ({select}) TO '{}/{name}.{ext}' STORED AS {format}",
        dir.display()
    );
    let start = Instant::now();
    let plan = ctx.sql(&sql).await?.create_physical_plan().await?;
    datafusion::physical_plan::collect(std::sync::Arc::clone(&plan), ctx.task_ctx()).await?;
    let wall = start.elapsed();
    let compute = plan
        .metrics()
        .and_then(|m| m.elapsed_compute())
        .unwrap_or(0);
    Ok((wall, Duration::from_nanos(compute as u64)))
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
