//! `cargo run --release --example remote_copy -- [df://HOST:PORT] [DIR] [ROWS]`
//! (in `datafusion/`): a plain Ballista client, with no parquet-flba setup
//! of its own, for a cluster of `parquet-flba-scheduler` and
//! `parquet-flba-executor` processes (default `df://localhost:50050`).
//!
//! It writes a decimal- and UUID-heavy table to `DIR/input.arrow` (default
//! a new directory under the system's temporary directory; the executors
//! must see the same path, as on one machine or a shared file system),
//! registers it, runs `COPY` to one file and `COPY ... PARTITIONED BY` on the
//! cluster, and prints the plan each ran on the cluster (with
//! `FlbaParquetSink` in it) and the files written.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use ballista::prelude::SessionContextExt;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "df://localhost:50050".into());
    let dir = match args.next() {
        Some(dir) => std::path::PathBuf::from(dir),
        None => common::scratch("remote_copy"),
    };
    let rows: usize = args
        .next()
        .map(|a| a.parse().expect("ROWS: a number"))
        .unwrap_or(200_000);
    std::fs::create_dir_all(&dir)?;
    let dir = std::fs::canonicalize(&dir)?;

    let per_batch = 8192;
    let data = common::batches(rows.div_ceil(per_batch), per_batch);
    let total = data.iter().map(|b| b.num_rows()).sum::<usize>();
    let input = dir.join("input.arrow");
    support::write_ipc(&input, &data);
    println!("input: {} ({total} rows)", input.display());

    // A stock Ballista client: the cluster's scheduler picks the sink.
    let state = SessionStateBuilder::new()
        .with_config(support::config())
        .with_default_features()
        .build();
    let ctx = SessionContext::remote_with_state(&url, state).await?;
    support::register(&ctx, "t", &input).await;

    for (what, sql) in [
        (
            "one file",
            format!(
                "COPY (SELECT * FROM t) TO '{}/out.parquet' STORED AS PARQUET",
                dir.display()
            ),
        ),
        (
            "partitioned by region",
            format!(
                "COPY (SELECT * FROM t) TO '{}/by_region/' STORED AS PARQUET PARTITIONED BY (region)",
                dir.display()
            ),
        ),
    ] {
        let start = Instant::now();
        let ran = support::run(&ctx, &sql).await?;
        println!(
            "\n{sql}\n{total} rows written ({what}) in {:.1} ms; the plan that ran on {url}:\n{}",
            start.elapsed().as_secs_f64() * 1e3,
            ran.executed
        );
        support::assert_sink(&ran, true, total);
    }
    println!("\nfiles written:");
    print_parquet_files(&dir)?;
    Ok(())
}

/// Prints every parquet file under `dir` with its size.
fn print_parquet_files(dir: &std::path::Path) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            print_parquet_files(&path)?;
        } else if path.extension().is_some_and(|e| e == "parquet") {
            println!("  {}  {} bytes", path.display(), entry.metadata()?.len());
        }
    }
    Ok(())
}
