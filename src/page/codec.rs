//! Page compression, without parquet's `experimental` API.
//!
//! parquet keeps its codecs behind the `experimental` feature, and that
//! feature drags in `parquet-variant` at the same version as parquet — which
//! for 59.3.3 was never published, so a crate that turned it on could not be
//! built against parquet 59.3.3 at all. The codecs are thin wrappers around
//! the compression crates parquet itself depends on, so this module calls
//! those same crates (the versions each release uses, declared per release
//! in Cargo.toml, so cargo resolves one copy shared with parquet) with the
//! same settings, and the compressed bytes are the same:
//!
//! | codec | what is written |
//! |---|---|
//! | SNAPPY | a raw (unframed) snappy block |
//! | GZIP(level) | a gzip member (flate2's default header) at `level` |
//! | BROTLI(level) | a brotli stream: 4096-byte buffer, window 2^22, flushed then finished |
//! | LZ4 | the Hadoop framing: big-endian raw length, big-endian block length, one LZ4 block |
//! | LZ4_RAW | one LZ4 block |
//! | ZSTD(level) | one zstd frame from a reused bulk context at `level` |
//!
//! `tests/differential.rs` (`codecs`) writes every codec (and several
//! levels) with parquet's `ArrowWriter` and ours and compares the files.
//!
//! Each codec is behind this crate's cargo feature of parquet's name
//! (`snap`, `flate2`, `brotli`, `lz4`, `zstd`; `compat::codecs`): with
//! the feature off the codec's crate is not built and a page cannot be
//! compressed with it here (the plan sends such a leaf to parquet if
//! parquet has the codec, else the file is refused with parquet's error;
//! `tests/codecs.rs`).

#[cfg(any(feature = "flate2", feature = "brotli"))]
use std::io::Write;

use crate::compat::codecs::Codec;
use parquet::basic::Compression;
use parquet::errors::{ParquetError, Result};

// The compression crates of the selected release (`codecs/v<release>`,
// whose features this crate's codec features turn on), under one name each.
#[cfg(feature = "brotli")]
use codecs::brotli;
#[cfg(feature = "lz4")]
use codecs::lz4_flex;
#[cfg(feature = "zstd")]
use codecs::zstd;
#[cfg(all(
    feature = "parquet-58",
    not(any(feature = "parquet-59", feature = "parquet-60")),
    any(feature = "brotli", feature = "lz4", feature = "zstd")
))]
use codecs_58 as codecs;
#[cfg(all(
    feature = "parquet-59",
    not(feature = "parquet-60"),
    any(feature = "brotli", feature = "lz4", feature = "zstd")
))]
use codecs_59 as codecs;
#[cfg(all(
    feature = "parquet-60",
    any(feature = "brotli", feature = "lz4", feature = "zstd")
))]
use codecs_60 as codecs;

/// Brotli's internal buffer and window (log2) as parquet sets them.
#[cfg(feature = "brotli")]
const BROTLI_BUFFER: usize = 4096;
#[cfg(feature = "brotli")]
const BROTLI_WINDOW_LOG2: u32 = 22;

/// The heap of snappy's encoder (boxed, with its small hash table)...
#[cfg(feature = "snap")]
const SNAPPY_SMALL: usize = std::mem::size_of::<snap::raw::Encoder>();
/// ...and its large table (16 Ki entries of 2 bytes), which it allocates
/// at its first block of more than [`SNAPPY_SMALL_INPUT`] bytes.
#[cfg(feature = "snap")]
const SNAPPY_LARGE: usize = 2 * (1 << 14);
#[cfg(feature = "snap")]
const SNAPPY_SMALL_INPUT: usize = 1 << 10;

/// One column's page compressor; reusable from page to page (the snappy
/// and zstd contexts are kept).
pub(crate) enum PageCodec {
    /// The encoder, and whether it has allocated its large hash table.
    #[cfg(feature = "snap")]
    Snappy(Box<snap::raw::Encoder>, bool),
    #[cfg(feature = "flate2")]
    Gzip(u32),
    #[cfg(feature = "brotli")]
    Brotli(u32),
    #[cfg(feature = "lz4")]
    Lz4Hadoop,
    #[cfg(feature = "lz4")]
    Lz4Raw,
    #[cfg(feature = "zstd")]
    Zstd(Box<zstd::bulk::Compressor<'static>>),
}

#[cfg(any(feature = "snap", feature = "lz4", feature = "zstd"))]
fn external(e: impl std::error::Error + Send + Sync + 'static) -> ParquetError {
    ParquetError::External(Box::new(e))
}

impl PageCodec {
    /// The compressor for `compression`; `None` when pages stay
    /// uncompressed; an error for a codec this build cannot write
    /// ([`Self::refusal`]).
    #[cfg_attr(
        not(any(
            feature = "snap",
            feature = "flate2",
            feature = "brotli",
            feature = "lz4",
            feature = "zstd"
        )),
        allow(
            unreachable_code,
            unused_variables,
            reason = "with every codec off, every arm returns"
        )
    )]
    pub(crate) fn for_compression(compression: Compression) -> Result<Option<Self>> {
        let codec = match compression {
            Compression::UNCOMPRESSED => return Ok(None),
            #[cfg(feature = "snap")]
            Compression::SNAPPY => Self::Snappy(Box::new(snap::raw::Encoder::new()), false),
            #[cfg(feature = "flate2")]
            Compression::GZIP(level) => Self::Gzip(level.compression_level()),
            #[cfg(feature = "brotli")]
            Compression::BROTLI(level) => Self::Brotli(level.compression_level()),
            #[cfg(feature = "lz4")]
            Compression::LZ4 => Self::Lz4Hadoop,
            #[cfg(feature = "lz4")]
            Compression::LZ4_RAW => Self::Lz4Raw,
            #[cfg(feature = "zstd")]
            Compression::ZSTD(level) => {
                let context =
                    zstd::bulk::Compressor::new(level.compression_level()).map_err(external)?;
                Self::Zstd(Box::new(context))
            }
            other => return Err(Self::refusal(other)),
        };
        Ok(Some(codec))
    }

    /// Fails as [`Self::for_compression`] would, without building a codec.
    pub(crate) fn check(compression: Compression) -> Result<()> {
        match Codec::of(compression) {
            Some(codec) if codec.built_here() => Ok(()),
            None if compression == Compression::UNCOMPRESSED => Ok(()),
            _ => Err(Self::refusal(compression)),
        }
    }

    /// The error for a codec this build cannot write: one whose feature is
    /// off is parquet's "Disabled feature at compile time" error for it
    /// (`compat::codecs`); one no parquet release can write (LZO) is the
    /// same "not yet implemented" error as parquet's.
    fn refusal(compression: Compression) -> ParquetError {
        match Codec::of(compression) {
            Some(codec) => codec.disabled(),
            None => ParquetError::NYI(format!("The codec type {compression} is not supported yet")),
        }
    }

    /// The heap the codec keeps between pages: the zstd context (as zstd
    /// measures it), snappy's encoder and hash tables; the others keep
    /// nothing between calls.
    pub(crate) fn memory_size(&mut self) -> usize {
        self.memory_size_for(0)
    }

    /// [`Self::memory_size`] once it has compressed `len` more bytes in
    /// one call (snappy's large table comes with a block over a kibibyte;
    /// a zstd context is counted as it is now).
    #[cfg_attr(
        not(feature = "snap"),
        allow(unused_variables, reason = "only snappy's tables depend on it")
    )]
    pub(crate) fn memory_size_for(&mut self, len: usize) -> usize {
        match self {
            #[cfg(feature = "snap")]
            Self::Snappy(_, large) if *large || len > SNAPPY_SMALL_INPUT => {
                SNAPPY_SMALL + SNAPPY_LARGE
            }
            #[cfg(feature = "snap")]
            Self::Snappy(..) => SNAPPY_SMALL,
            #[cfg(feature = "zstd")]
            Self::Zstd(context) => context.context_mut().sizeof(),
            #[allow(unreachable_patterns, reason = "every codec may be off")]
            _ => 0,
        }
    }

    /// The most bytes [`Self::compress`] appends for `len` input bytes
    /// (so that an output buffer with this much room never grows), as the
    /// compression crates bound it; for gzip and brotli, which stream, a
    /// bound of the same form (the input, stored, plus framing).
    pub(crate) fn max_compressed_len(&self, len: usize) -> usize {
        match self {
            #[cfg(feature = "snap")]
            Self::Snappy(..) => snap::raw::max_compress_len(len),
            #[cfg(feature = "zstd")]
            Self::Zstd(_) => zstd::zstd_safe::compress_bound(len),
            #[cfg(feature = "lz4")]
            Self::Lz4Raw => lz4_flex::block::get_maximum_output_size(len),
            #[cfg(feature = "lz4")]
            Self::Lz4Hadoop => 8 + lz4_flex::block::get_maximum_output_size(len),
            // Stored deflate blocks (5 bytes per block of at most 64 KiB,
            // counted here per 16 KiB), the gzip header and trailer.
            #[cfg(feature = "flate2")]
            Self::Gzip(_) => len + 5 * (len / 16_384 + 1) + 64,
            // Brotli's own bound (4 bytes per 16 KiB and a few more), and
            // the flush before its end.
            #[cfg(feature = "brotli")]
            Self::Brotli(_) => len + 4 * (len >> 14) + 64,
            #[allow(unreachable_patterns, reason = "every codec may be off")]
            _ => len,
        }
    }

    /// Appends `input`, compressed, to `out`.
    #[cfg_attr(
        not(any(
            feature = "snap",
            feature = "flate2",
            feature = "brotli",
            feature = "lz4",
            feature = "zstd"
        )),
        allow(clippy::ptr_arg, reason = "with every codec off, nothing is appended")
    )]
    pub(crate) fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        // Where this page's bytes start in `out`.
        let start = out.len();
        match self {
            #[cfg(feature = "snap")]
            Self::Snappy(encoder, large) => {
                // Its large table comes with the first block over 1 KiB.
                *large |= input.len() > SNAPPY_SMALL_INPUT;
                out.resize(start + snap::raw::max_compress_len(input.len()), 0);
                let written = encoder
                    .compress(input, &mut out[start..])
                    .map_err(external)?;
                out.truncate(start + written);
            }
            #[cfg(feature = "flate2")]
            Self::Gzip(level) => {
                let mut gzip =
                    flate2::write::GzEncoder::new(&mut *out, flate2::Compression::new(*level));
                gzip.write_all(input)?;
                gzip.try_finish()?;
            }
            #[cfg(feature = "brotli")]
            Self::Brotli(quality) => {
                let mut stream = brotli::CompressorWriter::new(
                    &mut *out,
                    BROTLI_BUFFER,
                    *quality,
                    BROTLI_WINDOW_LOG2,
                );
                stream.write_all(input)?;
                stream.flush()?;
                // Dropping the writer ends the stream.
            }
            #[cfg(feature = "lz4")]
            Self::Lz4Raw => lz4_block(input, out)?,
            #[cfg(feature = "lz4")]
            Self::Lz4Hadoop => {
                // Two big-endian u32 lengths in front of the block.
                out.resize(start + 8, 0);
                lz4_block(input, out)?;
                let block = out.len() - start - 8;
                let raw = u32::try_from(input.len()).map_err(external)?;
                let block = u32::try_from(block).map_err(external)?;
                out[start..start + 4].copy_from_slice(&raw.to_be_bytes());
                out[start + 4..start + 8].copy_from_slice(&block.to_be_bytes());
            }
            #[cfg(feature = "zstd")]
            Self::Zstd(context) => {
                out.reserve(zstd::zstd_safe::compress_bound(input.len()));
                let mut tail = std::io::Cursor::new(&mut *out);
                tail.set_position(start as u64);
                context.compress_to_buffer(input, &mut tail)?;
            }
            // With every codec left out there is no compressor to call.
            #[allow(unreachable_patterns, reason = "reached when every codec is off")]
            _ => {
                let _ = (input, start);
            }
        }
        Ok(())
    }
}

/// Appends `input` as one LZ4 block to `out`.
#[cfg(feature = "lz4")]
fn lz4_block(input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    out.resize(
        start + lz4_flex::block::get_maximum_output_size(input.len()),
        0,
    );
    let written = lz4_flex::block::compress_into(input, &mut out[start..]).map_err(external)?;
    out.truncate(start + written);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::basic::{BrotliLevel, GzipLevel, ZstdLevel};

    /// Each codec's output decompresses, by the codec's own crate, to the
    /// input, also when appended after earlier bytes.
    #[test]
    #[cfg(all(
        feature = "snap",
        feature = "flate2",
        feature = "brotli",
        feature = "lz4",
        feature = "zstd"
    ))]
    fn round_trips_after_a_prefix() {
        let input: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let codecs = [
            Compression::SNAPPY,
            Compression::GZIP(GzipLevel::try_new(9).unwrap()),
            Compression::BROTLI(BrotliLevel::try_new(3).unwrap()),
            Compression::LZ4,
            Compression::LZ4_RAW,
            Compression::ZSTD(ZstdLevel::try_new(3).unwrap()),
        ];
        for compression in codecs {
            let mut codec = PageCodec::for_compression(compression).unwrap().unwrap();
            let mut out = b"prefix".to_vec();
            codec.compress(&input, &mut out).unwrap();
            assert_eq!(&out[..6], b"prefix");
            let body = &out[6..];
            let back = match compression {
                Compression::SNAPPY => snap::raw::Decoder::new().decompress_vec(body).unwrap(),
                Compression::GZIP(_) => {
                    let mut back = Vec::new();
                    let mut d = flate2::read::GzDecoder::new(body);
                    std::io::Read::read_to_end(&mut d, &mut back).unwrap();
                    back
                }
                Compression::BROTLI(_) => {
                    let mut back = Vec::new();
                    let mut d = brotli::Decompressor::new(body, 4096);
                    std::io::Read::read_to_end(&mut d, &mut back).unwrap();
                    back
                }
                Compression::LZ4 => {
                    let raw = u32::from_be_bytes(body[..4].try_into().unwrap()) as usize;
                    let block = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
                    assert_eq!(block, body.len() - 8);
                    lz4_flex::block::decompress(&body[8..], raw).unwrap()
                }
                Compression::LZ4_RAW => lz4_flex::block::decompress(body, input.len()).unwrap(),
                Compression::ZSTD(_) => zstd::bulk::decompress(body, input.len()).unwrap(),
                _ => unreachable!(),
            };
            assert!(back == input, "{compression} does not round-trip");
        }
    }

    /// A codec whose feature is off is refused with parquet's message for
    /// it (`create_codec`'s "Disabled feature at compile time: …"); one
    /// that is on is built.
    #[test]
    fn a_codec_left_out_is_refused_as_parquet_refuses_it() {
        let codecs = [
            (Compression::SNAPPY, "snap", cfg!(feature = "snap")),
            (
                Compression::GZIP(GzipLevel::default()),
                "flate2",
                cfg!(feature = "flate2"),
            ),
            (
                Compression::BROTLI(BrotliLevel::default()),
                "brotli",
                cfg!(feature = "brotli"),
            ),
            (Compression::LZ4, "lz4", cfg!(feature = "lz4")),
            (Compression::LZ4_RAW, "lz4", cfg!(feature = "lz4")),
            (
                Compression::ZSTD(ZstdLevel::default()),
                "zstd",
                cfg!(feature = "zstd"),
            ),
        ];
        for (compression, feature, on) in codecs {
            match PageCodec::for_compression(compression) {
                Ok(Some(_)) if on => {}
                Err(ParquetError::General(message)) if !on => assert_eq!(
                    message,
                    format!("Disabled feature at compile time: {feature}")
                ),
                Ok(_) => panic!("{compression}: built with its feature off"),
                Err(e) => panic!("{compression}: {e}"),
            }
        }
    }

    #[test]
    fn lzo_is_not_implemented_as_in_parquet() {
        let Err(err) = PageCodec::for_compression(Compression::LZO) else {
            panic!("LZO accepted");
        };
        assert!(matches!(err, ParquetError::NYI(_)), "{err}");
        assert!(
            PageCodec::for_compression(Compression::UNCOMPRESSED)
                .unwrap()
                .is_none()
        );
    }
}
