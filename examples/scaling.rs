//! Wall time of a file written on 1, 2, 4, 8, 16 threads: parquet-flba's
//! `ArrowWriter::with_threads(n)` beside `parquet`'s own column API on
//! `n` threads (what DataFusion's parallel writer does: the columns of a
//! row group encoded on `n` threads, the chunks appended in order), and
//! `parquet::arrow::ArrowWriter` on one thread for reference.
//!
//! Tables: `wide16` (six `Decimal128(38,10)` with 10% nulls, four UUIDs,
//! four `Decimal128(18,4)`, two `Decimal256(76,10)`), `mixed4` (UUID,
//! `Decimal128(38,10)` with 10% nulls, Int64, Utf8) and `decimal_nonnull`
//! (`Decimal128(38,10)` + `Decimal256(76,10)`); 2,097,152 rows (two row
//! groups), written as one batch or as 64 batches; the default
//! configuration and zstd. Every file is checked to be `parquet`'s.
//!
//! Each round writes every (writer, threads) once, in an order that
//! rotates between rounds, so a noisy machine's slow spells spread over
//! all of them. Reported per row: min / median / max wall time and the
//! median over the same writer's median on one thread.
//!
//! ```text
//! # the 16-core table (about 10 minutes on 16 cores):
//! cargo run --release --example scaling -- --threads 1,2,4,8,16 --rounds 5
//! # a 2-core machine:
//! cargo run --release --example scaling -- --threads 1,2 --rounds 7
//! # one table, configuration and shape:
//! cargo run --release --example scaling -- --only wide16/zstd/64x --threads 1,2
//! # parquet-flba only (the file is still checked against parquet's):
//! cargo run --release --example scaling -- --writers flba --threads 1,2
//! # a profile of parquet-flba on 2 threads (no other writer, no checks):
//! cargo run --release --example scaling -- --only wide16/default/64x --profile 2
//! ```

include!("../src/versions.rs");

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowSchemaConverter;
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use workloads::{config, exit_code, parse_count, setup_batches, wide16, workload};

/// Rows of every table: two row groups of parquet's default size.
const ROWS: usize = 2 << 20;

/// The writers compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Writer {
    /// `parquet::arrow::ArrowWriter` (one thread).
    Parquet,
    /// `parquet`'s column API on `n` threads.
    Columns,
    /// `parquet_flba::ArrowWriter::with_threads(n)`.
    Flba,
}

impl Writer {
    fn name(self) -> &'static str {
        match self {
            Writer::Parquet => "parquet ArrowWriter",
            Writer::Columns => "parquet column API",
            Writer::Flba => "parquet-flba",
        }
    }
}

/// Writes `batches` with `writer` on `threads` threads into `out`; the
/// wall time in milliseconds.
fn write(
    writer: Writer,
    threads: usize,
    batches: &[RecordBatch],
    props: &WriterProperties,
    out: &mut Vec<u8>,
) -> Result<f64, String> {
    out.clear();
    let schema = batches[0].schema();
    let start = Instant::now();
    match writer {
        Writer::Parquet => {
            let mut w =
                parquet::arrow::ArrowWriter::try_new(&mut *out, schema, Some(props.clone()))
                    .map_err(|e| e.to_string())?;
            for b in batches {
                w.write(b).map_err(|e| e.to_string())?;
            }
            w.close().map_err(|e| e.to_string())?;
        }
        Writer::Flba => {
            let before = thread_cpu();
            let mut w = parquet_flba::ArrowWriter::try_new(&mut *out, schema, Some(props.clone()))
                .map_err(|e| e.to_string())?
                .with_threads(threads);
            for b in batches {
                w.write(b).map_err(|e| e.to_string())?;
            }
            if std::env::var_os("SCALING_DEBUG").is_some() {
                // Where the work ran.
                eprintln!("{:?}", w.thread_work());
            }
            w.close().map_err(|e| e.to_string())?;
            if std::env::var_os("SCALING_DEBUG").is_some() {
                let after = thread_cpu();
                let used: Vec<String> = after
                    .iter()
                    .map(|(name, [run, wait])| {
                        let was = before
                            .iter()
                            .find(|(n, _)| n == name)
                            .map_or([0, 0], |(_, t)| *t);
                        format!(
                            "{name}: {} ms on a CPU, {} ms runnable",
                            (run - was[0]) / 1_000_000,
                            (wait - was[1]) / 1_000_000
                        )
                    })
                    .collect();
                eprintln!(
                    "{}; wall {:.0} ms",
                    used.join("; "),
                    start.elapsed().as_secs_f64() * 1e3
                );
            }
        }
        Writer::Columns => write_columns(schema, batches, props, threads, out)?,
    }
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

/// Per thread of this process, by name: nanoseconds on a CPU and waiting
/// for one (runnable, not running) so far (`/proc/self/task/*/schedstat`;
/// Linux, empty elsewhere). Wall time less both is time asleep (idle).
fn thread_cpu() -> Vec<(String, [u64; 2])> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .filter_map(|task| {
            let path = task.ok()?.path();
            let name = std::fs::read_to_string(path.join("comm"))
                .ok()?
                .trim()
                .to_string();
            let stat = std::fs::read_to_string(path.join("schedstat")).ok()?;
            let mut fields = stat.split_whitespace().map(|f| f.parse::<u64>().ok());
            Some((name, [fields.next()??, fields.next()??]))
        })
        .collect()
}

/// `parquet`'s column API on `threads` threads: for each row group, its
/// columns shared out among the threads (each takes the next column not
/// yet taken, writes that column's slices of every batch and closes it),
/// then the chunks appended in order. The file is `ArrowWriter`'s.
fn write_columns(
    schema: SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    threads: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut props = props.clone();
    parquet::arrow::add_encoded_arrow_schema_to_metadata(&schema, &mut props);
    let parquet_schema = ArrowSchemaConverter::new()
        .convert(&schema)
        .map_err(|e| e.to_string())?;
    let max_rows = props.max_row_group_row_count().unwrap_or(usize::MAX);
    let mut file =
        SerializedFileWriter::new(out, parquet_schema.root_schema_ptr(), Arc::new(props))
            .map_err(|e| e.to_string())?;
    // parquet 60.2 deprecates `new` for `try_new`, which 60.1 and earlier lack.
    #[allow(deprecated)]
    let factory = ArrowRowGroupWriterFactory::new(&file, schema.clone());
    for (index, parts) in row_groups(batches, max_rows).into_iter().enumerate() {
        let writers = factory
            .create_column_writers(index)
            .map_err(|e| e.to_string())?;
        if writers.len() != schema.fields().len() {
            return Err("the column API baseline takes flat tables only".into());
        }
        let slots: Vec<_> = writers
            .into_iter()
            .map(|w| std::sync::Mutex::new((Some(w), None::<Result<ArrowColumnChunk, String>>)))
            .collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    loop {
                        let column = next.fetch_add(1, Ordering::Relaxed);
                        let Some(slot) = slots.get(column) else {
                            break;
                        };
                        let mut writer = slot.lock().unwrap().0.take().unwrap();
                        let field = &schema.fields()[column];
                        let chunk = parts
                            .iter()
                            .try_for_each(|part| {
                                for leaf in compute_leaves(field, part.column(column))? {
                                    writer.write(&leaf)?;
                                }
                                Ok(())
                            })
                            .and_then(|()| writer.close())
                            .map_err(|e: parquet::errors::ParquetError| e.to_string());
                        slot.lock().unwrap().1 = Some(chunk);
                    }
                });
            }
        });
        let mut row_group = file.next_row_group().map_err(|e| e.to_string())?;
        for slot in slots {
            let chunk = slot
                .into_inner()
                .unwrap()
                .1
                .ok_or("a column was not written")??;
            chunk
                .append_to_row_group(&mut row_group)
                .map_err(|e| e.to_string())?;
        }
        row_group.close().map_err(|e| e.to_string())?;
    }
    file.close().map_err(|e| e.to_string())?;
    Ok(())
}

/// The batches cut into row groups of `max_rows` rows, as `ArrowWriter`
/// cuts them.
fn row_groups(batches: &[RecordBatch], max_rows: usize) -> Vec<Vec<RecordBatch>> {
    let mut groups = vec![Vec::new()];
    let mut rows = 0;
    for batch in batches {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let take = (batch.num_rows() - offset).min(max_rows - rows);
            groups.last_mut().unwrap().push(batch.slice(offset, take));
            (offset, rows) = (offset + take, rows + take);
            if rows == max_rows {
                groups.push(Vec::new());
                rows = 0;
            }
        }
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// `batch` cut into `n` batches.
fn split(batch: &RecordBatch, n: usize) -> Vec<RecordBatch> {
    let size = batch.num_rows().div_ceil(n);
    (0..n)
        .map(|i| batch.slice(i * size, size.min(batch.num_rows() - i * size)))
        .collect()
}

fn parse_list(flag: &str, value: &str) -> Result<Vec<usize>, String> {
    value.split(',').map(|v| parse_count(flag, v)).collect()
}

fn run() -> Result<(), String> {
    let mut rounds = 5;
    let mut threads = vec![1, 2, 4, 8, 16];
    let mut only: Option<String> = None;
    let mut profile: Option<usize> = None;
    let mut writers = vec![Writer::Parquet, Writer::Columns, Writer::Flba];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--rounds" => rounds = parse_count("--rounds", &value()?)?,
            "--threads" => threads = parse_list("--threads", &value()?)?,
            "--only" => only = Some(value()?),
            "--profile" => profile = Some(parse_count("--profile", &value()?)?),
            "--writers" => {
                writers = value()?
                    .split(',')
                    .map(|w| match w {
                        "parquet" => Ok(Writer::Parquet),
                        "columns" => Ok(Writer::Columns),
                        "flba" => Ok(Writer::Flba),
                        other => Err(format!("unknown writer {other} (parquet, columns, flba)")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            other => {
                return Err(format!(
                    "unknown argument {other} (--rounds N, --threads 1,2,..., --only TABLE/CONFIGURATION/SHAPE, --writers parquet,columns,flba, --profile THREADS)"
                ));
            }
        }
    }
    let tables = [
        ("wide16", wide16(ROWS)),
        ("mixed4", setup_batches(1, ROWS).remove(0)),
        (
            "decimal_nonnull",
            workload("decimal_nonnull").expect("workload").build(ROWS),
        ),
    ];
    println!(
        "# Wall time, {ROWS} rows, {rounds} rounds; {} cores; `÷ 1`: median over the same writer's one-thread median\n",
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!(
        "| table | configuration | batches | writer | threads | min / median / max ms | ÷ 1 |"
    );
    println!("|---|---|---|---|---:|---|---:|");
    let mut out = Vec::new();
    let mut reference = Vec::new();
    for (table, batch) in &tables {
        for configuration in ["default", "zstd"] {
            let props = config(configuration).ok_or("unknown configuration")?;
            for (shape, batches) in [("1x", vec![batch.clone()]), ("64x", split(batch, 64))] {
                let label = format!("{table}/{configuration}/{shape}");
                if only.as_ref().is_some_and(|o| *o != label) {
                    continue;
                }
                if let Some(n) = profile {
                    let mut times: Vec<f64> = (0..rounds)
                        .map(|_| write(Writer::Flba, n, &batches, &props, &mut out))
                        .collect::<Result<_, _>>()?;
                    times.sort_by(f64::total_cmp);
                    println!(
                        "| {label} | parquet-flba | {n} | {:.1} median |",
                        times[rounds / 2]
                    );
                    continue;
                }
                // Every file is parquet's.
                write(Writer::Parquet, 1, &batches, &props, &mut reference)?;
                let mut runs: Vec<(Writer, usize)> = Vec::new();
                if writers.contains(&Writer::Parquet) {
                    runs.push((Writer::Parquet, 1));
                }
                for &n in &threads {
                    for writer in [Writer::Columns, Writer::Flba] {
                        if writers.contains(&writer) {
                            runs.push((writer, n));
                        }
                    }
                }
                for &(writer, n) in &runs {
                    write(writer, n, &batches, &props, &mut out)?;
                    if out != reference {
                        return Err(format!(
                            "{label}: {} on {n} threads wrote other bytes",
                            writer.name()
                        ));
                    }
                }
                let mut times = vec![Vec::new(); runs.len()];
                for round in 0..rounds {
                    for k in 0..runs.len() {
                        let at = (k + round) % runs.len();
                        let (writer, n) = runs[at];
                        times[at].push(write(writer, n, &batches, &props, &mut out)?);
                    }
                }
                let medians: Vec<f64> = times
                    .iter_mut()
                    .map(|t| {
                        t.sort_by(f64::total_cmp);
                        t[t.len() / 2]
                    })
                    .collect();
                for (at, &(writer, n)) in runs.iter().enumerate() {
                    let one = runs
                        .iter()
                        .position(|&(w, m)| w == writer && m == 1)
                        .map(|i| medians[i]);
                    let ratio =
                        one.map_or(String::new(), |one| format!("{:.2}", medians[at] / one));
                    let t = &times[at];
                    println!(
                        "| {table} | {configuration} | {shape} | {} | {n} | {:.1} / {:.1} / {:.1} | {ratio} |",
                        writer.name(),
                        t[0],
                        medians[at],
                        t[t.len() - 1]
                    );
                }
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    exit_code(run())
}
