//! Heap-allocation report: upstream `parquet::arrow::ArrowWriter` against
//! `parquet_flba::ArrowWriter`, for every workload × configuration of
//! `benches/write.rs`.
//!
//! A counting `#[global_allocator]` (wrapping `std::alloc::System`) is reset
//! right before `try_new` and read right after `close`, so each row of the
//! report covers exactly one `try_new` + `write(&batch)` + `close()` into
//! `std::io::sink()` (the batch is built before, and the output bytes are not
//! kept, so "peak live" is the writer's own working memory). It prints a
//! markdown table of heap allocations, reallocations, bytes allocated and peak
//! live bytes, then the setup cost (allocations per file when writing 500
//! small files of a mixed table, as the `setup` bench does) and the headline
//! figure: allocations to write 1,048,576 non-null `Decimal128(38,10)` values
//! in the default configuration.
//!
//! ```text
//! cargo run --release --example alloc_report
//! cargo run --release --example alloc_report -- --workload decimal_nonnull --config default
//! cargo run --release --example alloc_report -- --workload fsb,uuid --config default --config zstd --rows 100000
//! ```
//!
//! parquet-flba keeps the page blocks of finished chunks for later chunks to
//! reuse (`parquet_flba::set_block_cache_limit`); the report turns that off,
//! so each file is counted as a process's first one would be, except for the
//! headline, which also shows the same file written again with the cache on.
//!
//! Flags: `--workload NAME` and `--config NAME` (repeatable or comma lists;
//! default: all), `--rows N` (default 1,048,576). Counts are deterministic
//! for a given build; run it in release mode, as debug builds allocate alike
//! but take much longer.

include!("../src/versions.rs");

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::process::ExitCode;
use std::sync::Arc;

use arrow_array::{Decimal128Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use workloads::alloc_counter::{self, CountingAlloc, Snapshot};
use workloads::{
    CONFIG_NAMES, DEFAULT_ROWS, SETUP_FILES, SETUP_ROWS, WORKLOADS, Writer, config, mib, thousands,
    write_file,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

struct Args {
    workloads: Vec<String>,
    configs: Vec<String>,
    rows: usize,
}

const USAGE: &str =
    "usage: alloc_report [--workload NAME[,NAME..]]... [--config NAME[,NAME..]]... [--rows N]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        workloads: Vec::new(),
        configs: Vec::new(),
        rows: DEFAULT_ROWS,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}");
            println!("workloads: {}", WORKLOADS.map(|w| w.name).join(", "));
            println!("configs: {}", CONFIG_NAMES.join(", "));
            std::process::exit(0);
        }
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--workload" => {
                for name in value()?.split(',').filter(|s| !s.is_empty()) {
                    if workloads::workload(name).is_none() {
                        return Err(format!(
                            "unknown workload '{name}'; known: {}",
                            WORKLOADS.map(|w| w.name).join(", ")
                        ));
                    }
                    args.workloads.push(name.to_string());
                }
            }
            "--config" => {
                for name in value()?.split(',').filter(|s| !s.is_empty()) {
                    if config(name).is_none() {
                        return Err(format!(
                            "unknown config '{name}'; known: {}",
                            CONFIG_NAMES.join(", ")
                        ));
                    }
                    args.configs.push(name.to_string());
                }
            }
            "--rows" => args.rows = workloads::parse_count("--rows", &value()?)?,
            _ => return Err(format!("unknown argument '{arg}'\n{USAGE}")),
        }
    }
    if args.workloads.is_empty() {
        args.workloads = WORKLOADS.iter().map(|w| w.name.to_string()).collect();
    }
    if args.configs.is_empty() {
        args.configs = CONFIG_NAMES.iter().map(|c| c.to_string()).collect();
    }
    Ok(args)
}

/// One `try_new` + `write` + `close` into `io::sink()`, counted.
fn measure(writer: Writer, batch: &RecordBatch, config_name: &str) -> Result<Snapshot, String> {
    let props = config(config_name).expect("validated");
    let schema = batch.schema();
    let batches = std::slice::from_ref(batch);
    alloc_counter::reset();
    let result = write_file(writer, std::io::sink(), schema, batches, props);
    let snap = alloc_counter::snapshot();
    result.map_err(|e| format!("{} failed on config {config_name}: {e}", writer.name()))?;
    Ok(snap)
}

fn mb(bytes: u64) -> String {
    format!("{:.2}", mib(bytes))
}

fn n(count: u64) -> String {
    thousands(count)
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    // Every file counted as the first: nothing reused from earlier files.
    let limit = parquet_flba::set_block_cache_limit(0);

    // Touch both writers once on a tiny batch, so one-time lazy initialisation
    // (thread-locals, statics) is not charged to whichever runs first.
    let warm = workloads::workload("decimal_nonnull").unwrap().build(100);
    for writer in Writer::BOTH {
        measure(writer, &warm, "default")?;
    }

    println!(
        "# Heap allocations per file ({} rows)\n",
        thousands(args.rows as u64)
    );
    println!(
        "One `try_new` + `write` + `close` into `io::sink()`; counters reset right before `try_new`. \
         Bytes and peak live in MiB.\n"
    );
    println!(
        "| workload | config | parquet allocs | parquet-flba allocs | parquet reallocs | parquet-flba reallocs | parquet MiB allocated | parquet-flba MiB allocated | parquet peak live MiB | parquet-flba peak live MiB |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for name in &args.workloads {
        let batch = workloads::workload(name)
            .expect("validated")
            .build(args.rows);
        for config_name in &args.configs {
            let p = measure(Writer::Parquet, &batch, config_name)?;
            let f = measure(Writer::Flba, &batch, config_name)?;
            println!(
                "| {name} | {config_name} | {} | {} | {} | {} | {} | {} | {} | {} |",
                n(p.allocations),
                n(f.allocations),
                n(p.reallocations),
                n(f.reallocations),
                mb(p.bytes_allocated),
                mb(f.bytes_allocated),
                mb(p.peak_live_bytes),
                mb(f.peak_live_bytes),
            );
        }
    }

    // Setup cost: many small files of a mixed table, as the `setup` bench.
    let small = workloads::setup_batches(SETUP_FILES, SETUP_ROWS);
    println!(
        "\n## Setup: {SETUP_FILES} files of {} rows (FixedSizeBinary(16), Decimal128(38,10), Int64, Utf8), default configuration, per file\n",
        thousands(SETUP_ROWS as u64)
    );
    println!("| writer | allocations | reallocations | KiB allocated | peak live KiB |");
    println!("|---|---:|---:|---:|---:|");
    for writer in Writer::BOTH {
        let (mut allocs, mut reallocs, mut bytes, mut peak) = (0u64, 0u64, 0u64, 0u64);
        for b in &small {
            let s = measure(writer, b, "default")?;
            allocs += s.allocations;
            reallocs += s.reallocations;
            bytes += s.bytes_allocated;
            peak = peak.max(s.peak_live_bytes);
        }
        let files = small.len() as u64;
        println!(
            "| {} | {} | {} | {:.1} | {:.1} |",
            writer.name(),
            n(allocs / files),
            n(reallocs / files),
            bytes as f64 / files as f64 / 1024.0,
            peak as f64 / 1024.0
        );
    }

    // Headline: a single non-null Decimal128(38,10) column, default config.
    let rows = args.rows;
    let mut r = StdRng::seed_from_u64(42);
    let max = 10i128.pow(38) - 1;
    let values = Decimal128Array::from_iter_values((0..rows).map(|_| r.random_range(-max..=max)))
        .with_precision_and_scale(38, 10)
        .map_err(|e| e.to_string())?;
    let schema = Schema::new(vec![Field::new("d", DataType::Decimal128(38, 10), false)]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![Arc::new(values)])
        .map_err(|e| e.to_string())?;
    println!(
        "\n## Writing {} non-null Decimal128(38,10) values, default configuration\n",
        thousands(rows as u64)
    );
    println!("| writer | allocations | reallocations | MiB allocated | peak live MiB |");
    println!("|---|---:|---:|---:|---:|");
    for writer in Writer::BOTH {
        let s = measure(writer, &batch, "default")?;
        println!(
            "| {} | {} | {} | {} | {} |",
            writer.name(),
            n(s.allocations),
            n(s.reallocations),
            mb(s.bytes_allocated),
            mb(s.peak_live_bytes)
        );
    }
    // The same file again, with the block cache on: its blocks are the ones
    // the previous write of it left.
    parquet_flba::set_block_cache_limit(limit);
    measure(Writer::Flba, &batch, "default")?;
    let s = measure(Writer::Flba, &batch, "default")?;
    println!(
        "| parquet-flba, written again (block cache on) | {} | {} | {} | {} |",
        n(s.allocations),
        n(s.reallocations),
        mb(s.bytes_allocated),
        mb(s.peak_live_bytes)
    );
    Ok(())
}

fn main() -> ExitCode {
    workloads::exit_code(run())
}
