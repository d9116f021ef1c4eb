//! Which page codecs a build can write: this crate's (its codec features,
//! named as parquet's: `snap`, `flate2`, `brotli`, `lz4`, `zstd`) and
//! parquet's own. Each codec feature of this crate turns parquet's on too,
//! but parquet can have a codec this crate lacks: another crate of the
//! program may turn parquet's feature on (DataFusion turns on all of them).
//!
//! * A fast leaf whose codec this build left out while parquet has it goes
//!   to parquet's writer (`DelegateReason::CodecFeatureOff`): the same file.
//! * A codec parquet lacks is refused with parquet's own error, `Disabled
//!   feature at compile time: <feature>`, where parquet's column writer
//!   panics with it (it unwraps `create_codec`'s error), that is when the
//!   row group's column writers are created.

use std::sync::Arc;
use std::sync::OnceLock;

use bytes::Bytes;
use parquet::basic::{Compression, Type as PhysicalType, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::metadata::ColumnChunkMetaData;
use parquet::file::serialized_reader::SerializedPageReader;
use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type};

/// The codecs with a cargo feature, in the order of [`Codec::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    Snappy,
    Gzip,
    Brotli,
    Lz4,
    Zstd,
}

impl Codec {
    const ALL: [Codec; 5] = [
        Codec::Snappy,
        Codec::Gzip,
        Codec::Brotli,
        Codec::Lz4,
        Codec::Zstd,
    ];

    /// The codec `compression` needs; `None` for UNCOMPRESSED and LZO
    /// (which no feature provides).
    pub(crate) fn of(compression: Compression) -> Option<Codec> {
        Some(match compression {
            Compression::SNAPPY => Codec::Snappy,
            Compression::GZIP(_) => Codec::Gzip,
            Compression::BROTLI(_) => Codec::Brotli,
            Compression::LZ4 | Compression::LZ4_RAW => Codec::Lz4,
            Compression::ZSTD(_) => Codec::Zstd,
            _ => return None,
        })
    }

    /// The cargo feature (parquet's and this crate's) that provides it.
    pub(crate) fn feature(self) -> &'static str {
        match self {
            Codec::Snappy => "snap",
            Codec::Gzip => "flate2",
            Codec::Brotli => "brotli",
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
        }
    }

    /// Whether this build compresses with it itself (`src/page/codec.rs`).
    pub(crate) fn built_here(self) -> bool {
        match self {
            Codec::Snappy => cfg!(feature = "snap"),
            Codec::Gzip => cfg!(feature = "flate2"),
            Codec::Brotli => cfg!(feature = "brotli"),
            Codec::Lz4 => cfg!(feature = "lz4"),
            Codec::Zstd => cfg!(feature = "zstd"),
        }
    }

    /// Whether the resolved parquet has it (checked once per process).
    pub(crate) fn in_parquet(self) -> bool {
        static FOUND: [OnceLock<bool>; 5] = [const { OnceLock::new() }; 5];
        let index = Self::ALL.iter().position(|&c| c == self).unwrap_or(0);
        *FOUND[index].get_or_init(|| self.built_here() || parquet_builds(self))
    }

    /// parquet's error for this codec when its feature is off.
    pub(crate) fn disabled(self) -> ParquetError {
        ParquetError::General(format!(
            "Disabled feature at compile time: {}",
            self.feature()
        ))
    }

    /// A `Compression` that needs this codec.
    fn compression(self) -> Compression {
        match self {
            Codec::Snappy => Compression::SNAPPY,
            Codec::Gzip => Compression::GZIP(Default::default()),
            Codec::Brotli => Compression::BROTLI(Default::default()),
            Codec::Lz4 => Compression::LZ4_RAW,
            Codec::Zstd => Compression::ZSTD(ZstdLevel::default()),
        }
    }
}

/// Whether parquet can create `codec`. Its codec factory is public only
/// with its `experimental` feature; a page reader calls it when created
/// (and reads nothing then), so one over no bytes, for a chunk compressed
/// with `codec`, is created exactly when parquet has the codec.
fn parquet_builds(codec: Codec) -> bool {
    let leaf = Type::primitive_type_builder("codec", PhysicalType::INT32).build();
    let Ok(leaf) = leaf else {
        return false;
    };
    let descr = ColumnDescriptor::new(Arc::new(leaf), 0, 0, ColumnPath::from("codec"));
    let meta = ColumnChunkMetaData::builder(Arc::new(descr))
        .set_compression(codec.compression())
        .build();
    let Ok(meta) = meta else {
        return false;
    };
    SerializedPageReader::new(Arc::new(Bytes::new()), &meta, 0, None).is_ok()
}

/// The first codec of `compressions` (each leaf's, in order) that parquet
/// lacks: parquet's error for it.
pub(crate) fn missing_in_parquet(
    compressions: impl IntoIterator<Item = Compression>,
) -> Option<ParquetError> {
    compressions
        .into_iter()
        .filter_map(Codec::of)
        .find(|c| !c.in_parquet())
        .map(Codec::disabled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A codec this build has is one parquet has (each codec feature turns
    /// parquet's on); the probe says what parquet has.
    #[test]
    fn parquet_has_every_codec_this_build_has() {
        for codec in Codec::ALL {
            if codec.built_here() {
                assert!(parquet_builds(codec), "{codec:?}");
            }
            assert_eq!(codec.in_parquet(), parquet_builds(codec), "{codec:?}");
            assert_eq!(Codec::of(codec.compression()), Some(codec));
        }
        assert_eq!(Codec::of(Compression::UNCOMPRESSED), None);
        assert!(missing_in_parquet([Compression::UNCOMPRESSED, Compression::LZO]).is_none());
    }
}
