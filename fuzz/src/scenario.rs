//! A whole write scenario decoded from fuzz input: schema, options,
//! batches and which API writes them.

use std::fmt::Write as _;

use arrow_array::{Array, RecordBatch};
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowSchemaConverter;

use super::generate::{
    ArrayOpts, Col, MAX_BATCHES, decode_columns, decode_props, decode_rows, gen_batch, limits,
    schema_of,
};
use super::input::ByteReader;
use super::writers::{Api, Opts, PageStoreChoice};

/// Schema, options, batches and API of one input.
pub struct Scenario {
    /// The columns.
    pub cols: Vec<Col>,
    /// The writer schema.
    pub schema: SchemaRef,
    /// Writer options.
    pub opts: Opts,
    /// How the file is written.
    pub api: Api,
    /// The batches (valid for the schema).
    pub batches: Vec<RecordBatch>,
}

impl Scenario {
    /// Decode a scenario of valid batches. `columns_api` allows the
    /// column-level API as well as `ArrowWriter`.
    pub fn decode(r: &mut ByteReader, columns_api: bool) -> Self {
        let cols = decode_columns(r);
        let schema = schema_of(&cols);
        let props = decode_props(r, &cols);
        let flags = r.u8();
        let mut opts = Opts {
            props,
            skip_arrow_metadata: flags & 1 != 0,
            ..Opts::default()
        };
        if flags & 2 != 0 {
            opts.schema_root = Some("fuzz_root".into());
        }
        if flags & 0x0C == 0x0C {
            // An explicit parquet schema: the converted one (with or without
            // coerced types, so sometimes one that does not match).
            opts.parquet_schema = ArrowSchemaConverter::new()
                .with_coerce_types(flags & 0x40 != 0)
                .convert(&schema)
                .ok();
        }
        let use_columns = columns_api && flags & 0x30 == 0x30;
        let extra = r.u8();
        opts.page_store = match extra & 3 {
            0 => PageStoreChoice::Default,
            1 => PageStoreChoice::InMemory,
            // Budgets that keep some pages in memory and spill the rest.
            2 => PageStoreChoice::Spill(r.pick(&[1 << 10, 8 << 10, 64 << 10])),
            _ => PageStoreChoice::Spill(0),
        };
        if !super::release::PAGE_STORES {
            // parquet 58 has none (the input is read the same way).
            opts.page_store = PageStoreChoice::Default;
        }
        if extra & 4 != 0 {
            opts.memory_block = Some(r.pick(&[1 << 20, 1, 4096, 100_003]));
        }
        // Bits 3-4: 2 to 4 threads (`parquet_flba` only).
        if extra & 0x18 != 0 {
            opts.threads = 1 + usize::from((extra >> 3) & 3);
            // Bit 5: small writes on the calling thread, as by default.
            opts.small_writes_inline = extra & 0x20 != 0;
        }
        let n_batches = 1 + r.below(MAX_BATCHES);
        let mut budget = limits().value_bytes;
        let mut batches = Vec::with_capacity(n_batches);
        for _ in 0..n_batches {
            let n = decode_rows(r, &cols, budget);
            budget = budget.saturating_sub(n * 8 * cols.len());
            batches.push(gen_batch(r, &cols, n, ArrayOpts::VALID));
        }
        let cut = r.u8();
        let cuts: Vec<bool> = (0..n_batches).map(|i| cut & (1 << i) != 0).collect();
        let api = if use_columns {
            Api::Columns {
                new_group_after: cuts,
                via_into_serialized: extra & 8 != 0,
            }
        } else {
            Api::ArrowWriter { flush_after: cuts }
        };
        Scenario {
            cols,
            schema,
            opts,
            api,
            batches,
        }
    }

    /// A description for failure messages.
    pub fn describe(&self) -> String {
        describe(&self.schema, &self.opts, &self.api, &self.batches)
    }
}

/// A description of a write for failure messages: schema, options, API and
/// the batches' shapes.
pub fn describe(schema: &SchemaRef, opts: &Opts, api: &Api, batches: &[RecordBatch]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "schema:");
    for f in schema.fields() {
        let _ = writeln!(
            s,
            "  {}: {} {}",
            f.name(),
            f.data_type(),
            if f.is_nullable() {
                "nullable"
            } else {
                "non-null"
            }
        );
    }
    let _ = writeln!(
        s,
        "options: skip_arrow_metadata={} schema_root={:?} explicit parquet schema={} \
         page store={:?} memory listener block={:?}",
        opts.skip_arrow_metadata,
        opts.schema_root,
        opts.parquet_schema.is_some(),
        opts.page_store,
        opts.memory_block
    );
    let _ = writeln!(s, "api: {api:?}");
    let _ = writeln!(s, "properties: {:?}", opts.props);
    for (i, b) in batches.iter().enumerate() {
        let cols: Vec<String> = b
            .columns()
            .iter()
            .map(|c| {
                format!(
                    "{} (offset {}, {} nulls)",
                    c.data_type(),
                    c.offset(),
                    c.logical_null_count()
                )
            })
            .collect();
        let _ = writeln!(s, "batch {i}: {} rows: {}", b.num_rows(), cols.join(", "));
    }
    s
}
