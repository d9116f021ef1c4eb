//! `parquet-flba`: the crate's end-to-end demo and a Parquet re-encoder.
//!
//! With no subcommand (this is what `cargo run --release` runs) it generates a
//! "trades" table in memory (2,000,000 rows by default, in batches of 65,536:
//! `price` Decimal128(38,10), `quantity` Decimal128(20,2), `trade_id`
//! FixedSizeBinary(16) UUIDv4, `notional` Decimal256(50,18), `ts` Timestamp(ns, UTC),
//! `symbol` Utf8), writes it with `parquet::arrow::ArrowWriter` and with
//! `parquet_flba::ArrowWriter` in each configuration, checks that both files are
//! byte-identical, and prints write throughput (MiB/s of value bytes, best of 3
//! runs), the speedup and the heap allocations of each writer.
//!
//! ```text
//! cargo run --release                                   # all configurations
//! cargo run --release -- --rows 200000 --config default,zstd
//! cargo run --release -- --out /tmp/trades              # keep the files
//! cargo run --release -- rewrite in.parquet out.parquet --compression zstd --writer-version 2
//! cargo run --release -- --help
//! ```
//!
//! Exit codes: 0 on success, 1 on an error (bad argument, unreadable file, ...),
//! 2 if the two writers produced different bytes.

include!("../../src/versions.rs");

#[path = "../../benches/workloads/mod.rs"]
mod workloads;

mod demo;
mod progress;
mod rewrite;

use std::process::ExitCode;

use workloads::alloc_counter::CountingAlloc;

/// Counts allocations for the demo's "allocations" column.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const USAGE: &str = "\
parquet-flba: write a generated trades table with parquet's ArrowWriter and with
parquet_flba's, check the files are byte-identical, compare speed and allocations.

USAGE:
    parquet-flba [OPTIONS]
    parquet-flba rewrite IN OUT [REWRITE OPTIONS]

OPTIONS:
    --rows N           rows of the trades table [default: 2,000,000]
    --batch-size N     rows per RecordBatch [default: 65,536]
    --config NAME      configuration(s) to run; repeatable or a comma list
                       [default: all of default, bloom_filter, parquet_2, zstd,
                       zstd_parquet_2, cdc, plain_nostats]
    --runs N           timed runs per writer and configuration; the best counts [default: 3]
    --out DIR          keep the written files in DIR (created if missing)
    -h, --help         print this help

REWRITE: re-encode an existing Parquet file through parquet_flba::ArrowWriter
    IN                          Parquet file to read
    OUT                         file to write (must differ from IN)
    --compression C             none, snappy, gzip[(L)], brotli[(L)], lz4, lz4_raw,
                                zstd[(L)] (also `zstd:3`) [default: none]
    --writer-version 1|2        Parquet format version of data pages [default: 1]
    --dictionary on|off         dictionary encoding [default: on]
    --batch-size N              rows per batch read [default: 65,536]
    Unset options are parquet's WriterProperties defaults.

Exit codes: 0 success, 1 error, 2 the two writers' files differ.";

/// Iterates command-line arguments, splitting `--flag=value`.
pub struct Args {
    items: std::vec::IntoIter<String>,
    pending_value: Option<String>,
}

/// One command-line item.
pub enum Arg {
    /// `--name` or `-n` (an inline `=value` is kept for [`Args::value`]).
    Flag(String),
    /// Anything else.
    Positional(String),
}

impl Args {
    fn new(items: Vec<String>) -> Self {
        Args {
            items: items.into_iter(),
            pending_value: None,
        }
    }

    /// The next flag or positional argument.
    pub fn next_arg(&mut self) -> Result<Option<Arg>, String> {
        if let Some(v) = self.pending_value.take() {
            return Err(format!("unexpected value '{v}'"));
        }
        Ok(self.items.next().map(|item| {
            if item.starts_with('-') && item.len() > 1 {
                match item.split_once('=') {
                    Some((flag, value)) if item.starts_with("--") => {
                        self.pending_value = Some(value.to_string());
                        Arg::Flag(flag.to_string())
                    }
                    _ => Arg::Flag(item),
                }
            } else {
                Arg::Positional(item)
            }
        }))
    }

    /// The value of `flag`: its inline `=value` or the next argument.
    pub fn value(&mut self, flag: &str) -> Result<String, String> {
        self.pending_value
            .take()
            .or_else(|| self.items.next())
            .ok_or_else(|| format!("{flag} needs a value (see --help)"))
    }

    /// The value of `flag` as a positive integer (`_` and `,` separators allowed).
    pub fn positive(&mut self, flag: &str) -> Result<usize, String> {
        let v = self.value(flag)?;
        v.replace(['_', ','], "")
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{flag}: '{v}' is not a positive integer"))
    }
}

fn run(items: Vec<String>) -> Result<ExitCode, String> {
    if items.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    match items.first().map(String::as_str) {
        Some("rewrite") => rewrite::run(Args::new(items[1..].to_vec())),
        _ => demo::run(Args::new(items)),
    }
}

fn main() -> ExitCode {
    let items: Vec<String> = std::env::args().skip(1).collect();
    // A panic is a bug (ours or a dependency's), never the user's fault: report
    // it as an error with exit code 1 instead of aborting with 101.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        eprintln!("\nerror: unexpected internal panic (this is a bug): {info}");
        if std::env::var_os("RUST_BACKTRACE").is_some() {
            default_hook(info);
        }
    }));
    match std::panic::catch_unwind(|| run(items)) {
        Ok(Ok(code)) => code,
        Ok(Err(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(1),
    }
}
