//! Wall time of writing whole tables (`benches/workloads/tables.rs`,
//! 2,097,152 rows in 64 batches, default configuration) to a file, with
//! `parquet`'s `ArrowWriter` and this crate's, the file passed as it is
//! (`File`) and wrapped in a 1 MiB `BufWriter` (`BufWriter<File>`).
//!
//! The criterion benches write into a `Vec<u8>`; a file is where most
//! writes go, and there the number of `write` calls counts: parquet 59 and
//! 60 hand the file each page whole, while this crate's chunks reach it
//! through `SerializedRowGroupWriter::append_column`, whose copy loop writes
//! 8 KiB at a time (as parquet 58's own writer does). Each call to a `File`
//! is a system call, so a bare `File` costs this crate a call per 8 KiB;
//! a `BufWriter` in front of it gathers them (see the README, "Writing to a
//! file"). Rounds alternate the writers and the two sinks, and the two
//! writers' files are checked to be identical; reported: min and median per
//! writer and sink, and the ratio of the medians.
//!
//! ```text
//! cargo run --release --example file_sink
//! cargo run --release --example file_sink -- --tables timestamp,mixed4 --rounds 9 --dir /tmp
//! ```

include!("../src/versions.rs");

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use workloads::tables::{TABLE_BATCHES, TABLE_ROWS, TABLES};
use workloads::{Writer, config, exit_code, parse_count, write_file};

/// The `BufWriter`'s capacity.
const BUFFER: usize = 1 << 20;

fn main() -> ExitCode {
    exit_code(run())
}

fn run() -> Result<(), String> {
    let mut names = "timestamp,uint64,prims,mixed4,strs_high".to_string();
    let mut rounds = 5usize;
    let mut dir = std::env::temp_dir();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--tables" => names = value()?,
            "--rounds" => rounds = parse_count(&a, &value()?)?,
            "--dir" => dir = PathBuf::from(value()?),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    let props = config("default").ok_or("no default configuration")?;
    println!(
        "{TABLE_ROWS} rows in {TABLE_BATCHES} batches, files in {}",
        dir.display()
    );
    for name in names.split(',') {
        let table = TABLES
            .iter()
            .find(|t| t.name == name)
            .ok_or(format!("no table {name}"))?;
        let batches = table.build(TABLE_ROWS, TABLE_BATCHES);
        let schema = batches[0].schema();
        // [writer][buffered] -> times in ms
        let mut times = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
        let mut files: [Vec<u8>; 2] = Default::default();
        for round in 0..rounds {
            for (wi, writer) in Writer::BOTH.iter().enumerate() {
                for buffered in [round % 2 == 1, round % 2 == 0] {
                    let path = dir.join(format!("file_sink_{}.parquet", writer.name()));
                    let file =
                        File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    let start = Instant::now();
                    let written = match buffered {
                        true => {
                            let sink = BufWriter::with_capacity(BUFFER, file);
                            write_file(*writer, sink, schema.clone(), &batches, props.clone())
                        }
                        false => write_file(*writer, file, schema.clone(), &batches, props.clone()),
                    };
                    written.map_err(|e| format!("{name}: {e}"))?;
                    times[wi][buffered as usize].push(start.elapsed().as_secs_f64() * 1e3);
                    files[wi] =
                        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        if files[0] != files[1] {
            return Err(format!("{name}: the two writers' files differ"));
        }
        for (buffered, sink) in [(0, "File"), (1, "BufWriter<File>")] {
            let mut med = [0.0; 2];
            for (wi, writer) in Writer::BOTH.iter().enumerate() {
                let t = &mut times[wi][buffered];
                t.sort_by(f64::total_cmp);
                med[wi] = t[t.len() / 2];
                println!(
                    "{name:12} {sink:16} {:13} min {:7.2} ms  median {:7.2} ms",
                    writer.name(),
                    t[0],
                    med[wi]
                );
            }
            println!(
                "{name:12} {sink:16} parquet / parquet-flba (medians) {:.2}x",
                med[0] / med[1]
            );
        }
    }
    Ok(())
}
