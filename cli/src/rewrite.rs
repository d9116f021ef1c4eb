//! `parquet-flba rewrite IN OUT`: re-encode an existing Parquet file through
//! `parquet_flba::ArrowWriter`, reading it with parquet's
//! `ParquetRecordBatchReaderBuilder`, with a progress bar over rows and row
//! groups, and report time and throughput.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::progress::Progress;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use crate::workloads::value_bytes;
use crate::workloads::{mib, thousands};
use crate::{Arg, Args};

/// Capacity of the `BufWriter` in front of the output file.
const OUTPUT_BUFFER: usize = 1 << 20;

struct Options {
    input: PathBuf,
    output: PathBuf,
    compression: Option<Compression>,
    writer_version: Option<WriterVersion>,
    dictionary: Option<bool>,
    batch_size: usize,
}

/// Parses a codec name: `none`, `snappy`, `gzip`, `brotli`, `lz4`, `lz4_raw`,
/// `zstd`, optionally with a level as `zstd(3)` or `zstd:3`.
fn parse_compression(s: &str) -> Result<Compression, String> {
    let lower = s.trim().to_ascii_lowercase();
    let c = match lower.as_str() {
        "none" | "uncompressed" | "off" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "brotli" => Compression::BROTLI(BrotliLevel::default()),
        "lz4" => Compression::LZ4,
        "lz4_raw" | "lz4-raw" => Compression::LZ4_RAW,
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        other => {
            // `zstd:3` -> `zstd(3)`, then parquet's own parser.
            let normalized = match other.split_once(':') {
                Some((codec, level)) => format!("{codec}({level})"),
                None => other.to_string(),
            };
            Compression::from_str(&normalized).map_err(|e| {
                format!(
                    "--compression: '{s}' is not a codec ({e}); use none, snappy, gzip[(1-9)], \
                     brotli[(0-11)], lz4, lz4_raw or zstd[(1-22)]"
                )
            })?
        }
    };
    Ok(c)
}

/// `zstd(3)`, `snappy`, ... as accepted by `--compression`.
fn codec_name(c: Compression) -> String {
    match c {
        Compression::UNCOMPRESSED => "none".to_string(),
        Compression::GZIP(l) => format!("gzip({})", l.compression_level()),
        Compression::BROTLI(l) => format!("brotli({})", l.compression_level()),
        Compression::ZSTD(l) => format!("zstd({})", l.compression_level()),
        other => other.to_string().to_ascii_lowercase(),
    }
}

fn parse(mut args: Args) -> Result<Options, String> {
    let mut positional = Vec::new();
    let mut compression = None;
    let mut writer_version = None;
    let mut dictionary = None;
    let mut batch_size = 65_536;
    while let Some(arg) = args.next_arg()? {
        match arg {
            Arg::Flag(f) if f == "--compression" => {
                compression = Some(parse_compression(&args.value(&f)?)?)
            }
            Arg::Flag(f) if f == "--writer-version" => {
                writer_version = Some(match args.value(&f)?.as_str() {
                    "1" | "1.0" => WriterVersion::PARQUET_1_0,
                    "2" | "2.0" => WriterVersion::PARQUET_2_0,
                    v => return Err(format!("--writer-version: '{v}' is not 1 or 2")),
                })
            }
            Arg::Flag(f) if f == "--dictionary" => {
                dictionary = Some(match args.value(&f)?.to_ascii_lowercase().as_str() {
                    "on" | "true" | "yes" | "1" => true,
                    "off" | "false" | "no" | "0" => false,
                    v => return Err(format!("--dictionary: '{v}' is not on or off")),
                })
            }
            Arg::Flag(f) if f == "--batch-size" => batch_size = args.positive(&f)?,
            Arg::Flag(f) => return Err(format!("rewrite: unknown option '{f}' (see --help)")),
            Arg::Positional(p) => positional.push(PathBuf::from(p)),
        }
    }
    let [input, output]: [PathBuf; 2] = positional.try_into().map_err(|p: Vec<PathBuf>| {
        format!(
            "rewrite needs exactly two paths, IN and OUT (got {}); see --help",
            p.len()
        )
    })?;
    Ok(Options {
        input,
        output,
        compression,
        writer_version,
        dictionary,
        batch_size,
    })
}

/// Removes the output file on drop unless [`PartialOutput::keep`] was called,
/// so an error (or a panic) leaves no truncated file behind.
struct PartialOutput<'a> {
    path: &'a Path,
    keep: bool,
}

impl PartialOutput<'_> {
    fn keep(mut self) {
        self.keep = true;
    }
}

impl Drop for PartialOutput<'_> {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(self.path);
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The opened input: a batch reader plus what the progress bar and the
/// summary need from its metadata.
struct Input {
    reader: ParquetRecordBatchReader,
    schema: SchemaRef,
    /// Size of the input file in bytes.
    size: u64,
    total_rows: u64,
    /// Cumulative row count at the end of each row group.
    row_group_ends: Vec<u64>,
}

/// Checks that `input` is a regular file distinct from `output`, opens it as
/// Parquet and collects the cumulative row count at each row-group end.
fn open_input(input: &Path, output: &Path, batch_size: usize) -> Result<Input, String> {
    let meta =
        std::fs::metadata(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", input.display()));
    }
    if same_file(input, output) {
        return Err(format!(
            "OUT {} is the same file as IN; choose another output path",
            output.display()
        ));
    }
    let file = File::open(input).map_err(|e| format!("cannot open {}: {e}", input.display()))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("{} is not a readable Parquet file: {e}", input.display()))?;
    let schema = builder.schema().clone();
    let metadata = builder.metadata().clone();
    let total_rows = metadata.file_metadata().num_rows().max(0) as u64;
    let row_group_ends: Vec<u64> = metadata
        .row_groups()
        .iter()
        .scan(0u64, |end, rg| {
            *end += rg.num_rows().max(0) as u64;
            Some(*end)
        })
        .collect();
    let reader = builder
        .with_batch_size(batch_size)
        .build()
        .map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    Ok(Input {
        reader,
        schema,
        size: meta.len(),
        total_rows,
        row_group_ends,
    })
}

/// Builds the `WriterProperties` from the options (unset ones keep parquet's
/// defaults) and the "compression ..., writer version ..., dictionary ..."
/// line describing the effective settings.
fn writer_properties(o: &Options) -> (WriterProperties, String) {
    let mut props = WriterProperties::builder();
    if let Some(c) = o.compression {
        props = props.set_compression(c);
    }
    if let Some(v) = o.writer_version {
        props = props.set_writer_version(v);
    }
    if let Some(d) = o.dictionary {
        props = props.set_dictionary_enabled(d);
    }
    let props = props.build();
    // No per-column overrides are set, so any path gives the file-wide values.
    let any_column = ColumnPath::from("_");
    let settings = format!(
        "compression {}, writer version {}, dictionary {}",
        codec_name(props.compression(&any_column)),
        props.writer_version().as_num(),
        if props.dictionary_enabled(&any_column) {
            "on"
        } else {
            "off"
        }
    );
    (props, settings)
}

/// Progress over `total_rows` rows.
fn progress_bar(total_rows: u64) -> Progress {
    Progress::new(total_rows, "rows")
}

/// What [`copy_batches`] read, wrote and how long it took.
struct Counters {
    rows: u64,
    batches: u64,
    /// Value bytes of the batches (see `value_bytes`).
    bytes: u64,
    read_time: Duration,
    /// Includes closing the writer.
    write_time: Duration,
    total_time: Duration,
    /// Row groups in the written file.
    written_row_groups: usize,
}

/// The 1-based row group being read once `rows` rows have been read, given
/// the cumulative row count at each row-group end (clamped to the last one).
fn row_group_at(row_group_ends: &[u64], rows: u64) -> usize {
    row_group_ends
        .partition_point(|end| *end <= rows)
        .min(row_group_ends.len().saturating_sub(1))
        + 1
}

/// Reads every batch of `reader`, writes it with `writer` and closes it,
/// showing progress over rows and row groups; `input` and `output` only name
/// the files in error messages.
fn copy_batches(
    mut reader: ParquetRecordBatchReader,
    mut writer: parquet_flba::ArrowWriter<BufWriter<File>>,
    total_rows: u64,
    row_group_ends: &[u64],
    input: &Path,
    output: &Path,
) -> Result<Counters, String> {
    let pb = progress_bar(total_rows);
    let row_groups = row_group_ends.len();
    let (mut read_time, mut write_time) = (Duration::ZERO, Duration::ZERO);
    let (mut rows, mut batches, mut bytes) = (0u64, 0u64, 0u64);
    let started = Instant::now();
    loop {
        let t = Instant::now();
        let next = reader.next();
        read_time += t.elapsed();
        let batch = match next {
            None => break,
            Some(Ok(batch)) => batch,
            Some(Err(e)) => {
                pb.abandon();
                return Err(format!(
                    "failed reading {} after {} rows: {e}",
                    input.display(),
                    thousands(rows)
                ));
            }
        };
        let t = Instant::now();
        if let Err(e) = writer.write(&batch) {
            pb.abandon();
            return Err(format!(
                "failed writing {} at rows {}..{}: {e}",
                output.display(),
                thousands(rows),
                thousands(rows + batch.num_rows() as u64)
            ));
        }
        write_time += t.elapsed();
        rows += batch.num_rows() as u64;
        batches += 1;
        bytes += value_bytes(&batch);
        let row_group = row_group_at(row_group_ends, rows);
        pb.set_message(format!(
            "row group {row_group}/{row_groups}, batch {batches}"
        ));
        pb.set_position(rows);
    }
    pb.set_message("closing");
    let t = Instant::now();
    let finishing =
        |e: &dyn std::fmt::Display| format!("failed finishing {}: {e}", output.display());
    let written = writer.finish().map_err(|e| finishing(&e))?;
    // The footer and the last bytes are still in the `BufWriter`: flushed
    // here so that a failure is reported, not lost when it is dropped.
    writer.inner_mut().flush().map_err(|e| finishing(&e))?;
    write_time += t.elapsed();
    let total_time = started.elapsed();
    pb.finish_and_clear();
    Ok(Counters {
        rows,
        batches,
        bytes,
        read_time,
        write_time,
        total_time,
        written_row_groups: written.num_row_groups(),
    })
}

/// Prints what was rewritten: rows, row groups, sizes, times and throughput.
/// `input_size` and `row_groups` describe the input file.
fn print_summary(
    input: &Path,
    output: &Path,
    settings: &str,
    input_size: u64,
    row_groups: usize,
    c: &Counters,
) {
    let output_size = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    let secs = |d: Duration| d.as_secs_f64().max(1e-9);
    println!(
        "rewrote {} -> {} with parquet_flba::ArrowWriter ({settings})",
        input.display(),
        output.display()
    );
    println!(
        "  rows:       {} in {} batches; row groups {} -> {}",
        thousands(c.rows),
        thousands(c.batches),
        row_groups,
        c.written_row_groups
    );
    println!(
        "  size:       {:.2} MiB -> {:.2} MiB ({:.1} MiB of value bytes)",
        mib(input_size),
        mib(output_size),
        mib(c.bytes)
    );
    println!(
        "  time:       {:.3} s total: read/decode {:.3} s, write/encode {:.3} s",
        secs(c.total_time),
        secs(c.read_time),
        secs(c.write_time)
    );
    println!(
        "  throughput: write {:.1} MiB/s of value bytes; end to end {:.1} MiB/s",
        mib(c.bytes) / secs(c.write_time),
        mib(c.bytes) / secs(c.total_time)
    );
}

/// Runs `rewrite`.
pub fn run(args: Args) -> Result<ExitCode, String> {
    let o = parse(args)?;
    let (input, output) = (o.input.as_path(), o.output.as_path());
    let Input {
        reader,
        schema,
        size: input_size,
        total_rows,
        row_group_ends,
    } = open_input(input, output, o.batch_size)?;
    let (props, settings) = writer_properties(&o);

    let out_file =
        File::create(output).map_err(|e| format!("cannot create {}: {e}", output.display()))?;
    let guard = PartialOutput {
        path: output,
        keep: false,
    };
    // Column chunks reach the output 8 KiB at a time (`append_column`'s
    // copy loop); a `File` makes each a system call, so they are gathered
    // into 1 MiB writes.
    let out_file = BufWriter::with_capacity(OUTPUT_BUFFER, out_file);
    let writer = parquet_flba::ArrowWriter::try_new(out_file, schema, Some(props))
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    let counters = copy_batches(reader, writer, total_rows, &row_group_ends, input, output)?;
    guard.keep();

    let row_groups = row_group_ends.len();
    print_summary(input, output, &settings, input_size, row_groups, &counters);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests;
