//! Page headers in the Thrift compact protocol, field for field as `parquet`
//! 60.1 writes them: optional fields only when present, in field-id order,
//! `is_sorted` / `is_compressed` / exactness flags always written.

use crate::encoding::bitpack::{write_uleb128, write_zigzag};
use parquet::basic::Encoding;

const TYPE_TRUE: u8 = 1;
const TYPE_FALSE: u8 = 2;
const TYPE_I32: u8 = 5;
const TYPE_I64: u8 = 6;
const TYPE_BINARY: u8 = 8;
const TYPE_STRUCT: u8 = 12;

const PAGE_DATA: i32 = 0;
const PAGE_DICTIONARY: i32 = 2;
const PAGE_DATA_V2: i32 = 3;

/// Statistics written into a data page header.
#[derive(Debug)]
pub(crate) struct PageStatistics<'a> {
    pub null_count: i64,
    pub min: &'a [u8],
    pub max: &'a [u8],
    pub min_exact: bool,
    pub max_exact: bool,
    pub nan_count: Option<i64>,
}

/// The type-specific part of a page header.
#[derive(Debug)]
pub(crate) enum PageKind<'a> {
    /// DATA_PAGE (V1).
    DataV1 {
        num_values: i32,
        encoding: Encoding,
        statistics: Option<PageStatistics<'a>>,
    },
    /// DATA_PAGE_V2.
    DataV2 {
        num_values: i32,
        num_nulls: i32,
        num_rows: i32,
        encoding: Encoding,
        def_levels_len: i32,
        rep_levels_len: i32,
        is_compressed: bool,
        statistics: Option<PageStatistics<'a>>,
    },
    /// DICTIONARY_PAGE, always PLAIN and unsorted.
    Dictionary { num_values: i32 },
}

/// Writes compact-protocol fields, tracking the last field id per struct.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    last: Vec<i16>,
}

impl<'a> Writer<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out, last: vec![0] }
    }

    fn field(&mut self, id: i16, ty: u8) {
        let last = self.last.last_mut().unwrap();
        let delta = id - *last;
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | ty);
        } else {
            self.out.push(ty);
            write_zigzag(self.out, id as i64);
        }
        *last = id;
    }

    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, TYPE_I32);
        write_zigzag(self.out, v as i64);
    }

    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, TYPE_I64);
        write_zigzag(self.out, v);
    }

    fn bool(&mut self, id: i16, v: bool) {
        self.field(id, if v { TYPE_TRUE } else { TYPE_FALSE });
    }

    fn binary(&mut self, id: i16, v: &[u8]) {
        self.field(id, TYPE_BINARY);
        write_uleb128(self.out, v.len() as u64);
        self.out.extend_from_slice(v);
    }

    fn begin_struct(&mut self, id: i16) {
        self.field(id, TYPE_STRUCT);
        self.last.push(0);
    }

    fn end_struct(&mut self) {
        self.out.push(0);
        self.last.pop();
    }

    fn statistics(&mut self, id: i16, stats: &PageStatistics<'_>) {
        self.begin_struct(id);
        self.i64(3, stats.null_count);
        self.binary(5, stats.max);
        self.binary(6, stats.min);
        self.bool(7, stats.max_exact);
        self.bool(8, stats.min_exact);
        if let Some(nan) = stats.nan_count {
            self.i64(9, nan);
        }
        self.end_struct();
    }
}

/// Appends the serialized header of a page to `out`.
pub(crate) fn write_page_header(
    out: &mut Vec<u8>,
    uncompressed_size: i32,
    compressed_size: i32,
    kind: &PageKind<'_>,
) {
    let mut w = Writer::new(out);
    let page_type = match kind {
        PageKind::DataV1 { .. } => PAGE_DATA,
        PageKind::DataV2 { .. } => PAGE_DATA_V2,
        PageKind::Dictionary { .. } => PAGE_DICTIONARY,
    };
    w.i32(1, page_type);
    w.i32(2, uncompressed_size);
    w.i32(3, compressed_size);
    match kind {
        PageKind::DataV1 {
            num_values,
            encoding,
            statistics,
        } => {
            w.begin_struct(5);
            w.i32(1, *num_values);
            w.i32(2, *encoding as i32);
            w.i32(3, Encoding::RLE as i32);
            w.i32(4, Encoding::RLE as i32);
            if let Some(stats) = statistics {
                w.statistics(5, stats);
            }
            w.end_struct();
        }
        PageKind::DataV2 {
            num_values,
            num_nulls,
            num_rows,
            encoding,
            def_levels_len,
            rep_levels_len,
            is_compressed,
            statistics,
        } => {
            w.begin_struct(8);
            w.i32(1, *num_values);
            w.i32(2, *num_nulls);
            w.i32(3, *num_rows);
            w.i32(4, *encoding as i32);
            w.i32(5, *def_levels_len);
            w.i32(6, *rep_levels_len);
            w.bool(7, *is_compressed);
            if let Some(stats) = statistics {
                w.statistics(8, stats);
            }
            w.end_struct();
        }
        PageKind::Dictionary { num_values } => {
            w.begin_struct(7);
            w.i32(1, *num_values);
            w.i32(2, Encoding::PLAIN as i32);
            w.bool(3, false);
            w.end_struct();
        }
    }
    w.end_struct_root();
}

impl Writer<'_> {
    fn end_struct_root(&mut self) {
        self.out.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use parquet::column::page::{CompressedPage, Page, PageWriter};
    use parquet::data_type::FixedLenByteArray;
    use parquet::file::statistics::{Statistics, ValueStatistics};
    use parquet::file::writer::{SerializedPageWriter, TrackedWrite};

    fn upstream(page: Page, uncompressed: usize) -> Vec<u8> {
        let mut sink = TrackedWrite::new(Vec::new());
        let len = page.buffer().len();
        {
            let mut writer = SerializedPageWriter::new(&mut sink);
            writer
                .write_page(CompressedPage::new(page, uncompressed))
                .unwrap();
        }
        let mut bytes = sink.into_inner().unwrap();
        bytes.truncate(bytes.len() - len);
        bytes
    }

    #[test]
    fn headers_match_upstream() {
        let body = Bytes::from(vec![7u8; 300]);
        // V1 without and with statistics
        for with_stats in [false, true] {
            let stats = with_stats.then(|| {
                Statistics::from(
                    ValueStatistics::<FixedLenByteArray>::new(
                        Some(FixedLenByteArray::from(vec![1, 2])),
                        Some(FixedLenByteArray::from(vec![3, 4, 5])),
                        None,
                        Some(17),
                        false,
                    )
                    .with_max_is_exact(false),
                )
            });
            let expected = upstream(
                Page::DataPage {
                    buf: body.clone(),
                    num_values: 1000,
                    encoding: Encoding::RLE_DICTIONARY,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: stats,
                },
                123456,
            );
            let mut ours = Vec::new();
            write_page_header(
                &mut ours,
                123456,
                300,
                &PageKind::DataV1 {
                    num_values: 1000,
                    encoding: Encoding::RLE_DICTIONARY,
                    statistics: with_stats.then_some(PageStatistics {
                        null_count: 17,
                        min: &[1, 2],
                        max: &[3, 4, 5],
                        min_exact: true,
                        max_exact: false,
                        nan_count: None,
                    }),
                },
            );
            assert_eq!(ours, expected);
        }
        // V2 with nan count (parquet 60; 59 has no NaN counts, D4)
        #[cfg(feature = "parquet-60")]
        {
            let stats = Statistics::from(
                ValueStatistics::<FixedLenByteArray>::new(
                    Some(FixedLenByteArray::from(vec![1, 2])),
                    Some(FixedLenByteArray::from(vec![3, 4])),
                    None,
                    Some(0),
                    false,
                )
                .with_nan_count(Some(3)),
            );
            for compressed in [false, true] {
                let expected = upstream(
                    Page::DataPageV2 {
                        buf: body.clone(),
                        num_values: 70000,
                        encoding: Encoding::DELTA_BYTE_ARRAY,
                        num_nulls: 5,
                        num_rows: 70000,
                        def_levels_byte_len: 9,
                        rep_levels_byte_len: 0,
                        is_compressed: compressed,
                        statistics: Some(stats.clone()),
                    },
                    400,
                );
                let mut ours = Vec::new();
                write_page_header(
                    &mut ours,
                    400,
                    300,
                    &PageKind::DataV2 {
                        num_values: 70000,
                        num_nulls: 5,
                        num_rows: 70000,
                        encoding: Encoding::DELTA_BYTE_ARRAY,
                        def_levels_len: 9,
                        rep_levels_len: 0,
                        is_compressed: compressed,
                        statistics: Some(PageStatistics {
                            null_count: 0,
                            min: &[1, 2],
                            max: &[3, 4],
                            min_exact: true,
                            max_exact: true,
                            nan_count: Some(3),
                        }),
                    },
                );
                assert_eq!(ours, expected);
            }
        }
        let expected = upstream(
            Page::DictionaryPage {
                buf: body.clone(),
                num_values: 9,
                encoding: Encoding::PLAIN,
                is_sorted: false,
            },
            300,
        );
        let mut ours = Vec::new();
        write_page_header(&mut ours, 300, 300, &PageKind::Dictionary { num_values: 9 });
        assert_eq!(ours, expected);
    }
}
