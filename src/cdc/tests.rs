//! The chunker against known answers and against [`super::model`].

use super::bounds::Bounds;
use super::cases::{FixedBatch, LeveledBatch, Rng, options, random_options};
use super::cursor::Carry;
use super::gear::{md5, tables};
use super::model::{self, Model};
use super::{Chunk, Chunker};
use crate::levels::LevelData;
use arrow_buffer::NullBuffer;
use parquet::file::properties::CdcOptions;

#[test]
fn md5_known_answers() {
    let hex = |d: [u8; 16]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
    assert_eq!(
        hex(md5(b"message digest")),
        "f96b697d7cb7938d525a2f31aaf161d0"
    );
    // 55, 56, 64 and 120 bytes: the padding edges.
    assert_eq!(hex(md5(&[b'a'; 55])), "ef1772b6dff9a122358552954ad0df65");
    assert_eq!(hex(md5(&[b'a'; 56])), "3b0c8ac703f828b04c6c197006d17218");
    assert_eq!(hex(md5(&[b'a'; 64])), "014842d480b571495a4a0363793f7367");
    assert_eq!(hex(md5(&[b'a'; 120])), "5f61c0ccad4cac44c75ff505e1f1e537");
    assert_eq!(
        hex(md5(
            b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
        )),
        "57edf4a22be3c955ac49da2e2107b67a"
    );
}

#[test]
fn gear_tables_follow_the_rule() {
    let t = tables();
    // Values published in parquet's and Arrow C++'s generated tables.
    assert_eq!(t[0][0], 0xf09f35a563783945);
    assert_eq!(t[0][1], 0x0dcc5b3bc5ae410a);
    assert_eq!(t[0][2], 0x63f1ea8d22554270);
    assert_eq!(t[0][3], 0xfbe5ee7bd05a7b61);
    assert_eq!(t[0][4], 0x3f692ed5e9934aba);
    // Every table differs from every other.
    for a in 0..t.len() {
        for b in a + 1..t.len() {
            assert_ne!(t[a], t[b]);
        }
    }
}

#[test]
fn match_bits_follow_the_options() {
    let bits = |min, max, norm| Bounds::new(&options(min, max, norm)).map(|b| b.match_bits());
    // Default: (640 KiB - 256 KiB) / 8 = 49152, floor(log2) = 15.
    let d = CdcOptions::default();
    assert_eq!(
        bits(d.min_chunk_size, d.max_chunk_size, d.norm_level).unwrap(),
        15
    );
    assert_eq!(bits(256 << 10, 1 << 20, 1).unwrap(), 14);
    assert_eq!(bits(256 << 10, 1 << 20, -3).unwrap(), 18);
    // (128 - 0) / 8 = 16: 4 bits; 17..=31 still 4.
    assert_eq!(bits(0, 256, 0).unwrap(), 4);
    assert_eq!(bits(0, 510, 0).unwrap(), 4);
    assert_eq!(bits(0, 512, 0).unwrap(), 5);
    assert_eq!(bits(0, 1, -63).unwrap(), 63);
    let err = |min, max, norm| {
        Bounds::new(&options(min, max, norm))
            .unwrap_err()
            .to_string()
    };
    assert!(err(0, 256, 4).contains("between 1 and 63, got 0"));
    assert!(err(0, 1, -64).contains("got 64"));
    assert!(err(0, 1, i32::MIN).contains("got -2147483648"));
    assert!(err(10, 10, 0).contains("greater than min_chunk_size"));
    assert!(err(usize::MAX, 10, 0).contains("non-negative"));
}

fn flat(spans: &[(usize, usize)]) -> Vec<Chunk> {
    let chunk = |&(offset, len)| Chunk { offset, len };
    spans.iter().map(chunk).collect()
}

#[test]
fn a_one_byte_maximum_closes_every_item() {
    let mut chunker = Chunker::try_new(&options(0, 1, -1)).unwrap();
    let chunks = chunker.chunks_fixed(4, false, None, &[7; 12], 3);
    // The first item closes an empty chunk, as in parquet.
    assert_eq!(chunks, flat(&[(0, 0), (0, 1), (1, 1), (2, 1), (3, 1)]));
    assert_eq!(chunker.carry.size, 0);
}

#[test]
fn nothing_is_hashed_below_the_minimum() {
    let mut chunker = Chunker::try_new(&options(1000, 2000, 0)).unwrap();
    let nulls = NullBuffer::from_iter((0..60).map(|i| i % 3 == 0));
    // 60 levels of 2 bytes and 20 values of 16: 440 bytes, twice.
    for round in 1..=2 {
        let chunks = chunker.chunks_fixed(60, true, Some(&nulls), &[9; 960], 16);
        assert_eq!(chunks, flat(&[(0, 60)]));
        assert_eq!(chunker.carry.size, 440 * round);
        assert_eq!(chunker.carry.hash, 0);
    }
    // Values 7 and 8 take the chunk to 1008 and 1024 bytes: both hashed.
    chunker.chunks_fixed(9, false, None, &[9; 144], 16);
    let (mut hash, mut run) = (0u64, 0);
    for _ in 0..2 {
        let mut matched = false;
        for _ in 0..16 {
            hash = (hash << 1).wrapping_add(tables()[run][9]);
            // (1500 - 1000) / 8 = 62: five zero bits make a match.
            matched |= hash >> 59 == 0;
        }
        run += usize::from(matched);
    }
    assert_eq!((chunker.carry.hash, chunker.carry.run), (hash, run));
}

#[test]
fn nested_chunks_end_only_where_records_start() {
    let mut chunker = Chunker::try_new(&options(0, 1, -1)).unwrap();
    let rep = LevelData::Materialized(vec![0, 1, 1, 0, 1, 0]);
    let def = LevelData::Uniform { value: 1, count: 6 };
    let chunks = chunker.chunks_leveled(&def, &rep, 1, 1, 1, 6, |_| &[1, 2]);
    let spans: Vec<_> = chunks
        .iter()
        .map(|c| (c.level_offset, c.num_levels))
        .collect();
    // Record starts 0 (nothing before it to close), 3 and 5.
    assert_eq!(spans, [(0, 3), (3, 2), (5, 1)]);
    assert!(chunks.iter().all(|c| c.value_offset == c.level_offset));
}

fn carry_of(model: &Model) -> Carry {
    Carry {
        hash: model.hash,
        run: model.run,
        size: model.size,
        pending: model.pending,
    }
}

/// Random top-level batches in sequence through one chunker, against the
/// model, over every width 0..=33.
#[test]
fn fixed_matches_the_model() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut closed_by = (0, 0);
    for round in 0..6 {
        for width in 0..=33 {
            let o = random_options(&mut rng);
            let mut chunker = Chunker::try_new(&o).unwrap();
            let mut model = Model::default();
            for batch in 0..4 {
                let b = FixedBatch::random(&mut rng, width);
                let items = b.items();
                let want = model::flat_chunks(&model.closings(&o, &items), b.len);
                let context = format!("round {round} width {width} batch {batch} {o:?}");
                assert_eq!(b.run(&mut chunker), want, "{context}");
                assert_eq!(chunker.carry, carry_of(&model), "{context}");
            }
            closed_by.0 += model.closed_by.0;
            closed_by.1 += model.closed_by.1;
        }
    }
    assert!(closed_by.0 > 500 && closed_by.1 > 500, "{closed_by:?}");
}

/// Random leveled batches of every kind, through one chunker, against the
/// model.
#[test]
fn leveled_matches_the_model() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let kinds = [(0, 0), (1, 0), (3, 0), (1, 1), (2, 1), (4, 2)];
    let mut closed_by = (0, 0);
    for round in 0..5 {
        for kind in kinds {
            let o = random_options(&mut rng);
            let width = [1, 2, 3, 4, 8, 12, 16, 17, 32][rng.below(9) as usize];
            let mut chunker = Chunker::try_new(&o).unwrap();
            let mut model = Model::default();
            for batch in 0..5 {
                let b = LeveledBatch::random(&mut rng, width, kind);
                let items = b.items();
                let closings = model.closings(&o, &items);
                let want = model::leveled_chunks(&closings, &items, kind.1 > 0);
                let context = format!("round {round} kind {kind:?} batch {batch} {o:?}");
                assert_eq!(b.run(&mut chunker), want, "{context}");
                assert_eq!(chunker.carry, carry_of(&model), "{context}");
            }
            closed_by.0 += model.closed_by.0;
            closed_by.1 += model.closed_by.1;
        }
    }
    assert!(closed_by.0 > 200 && closed_by.1 > 200, "{closed_by:?}");
}

/// Top-level batches after a nested one that leaves a match pending.
#[test]
fn fixed_resumes_a_pending_match() {
    let mut rng = Rng(77);
    let mut pending_seen = false;
    for _ in 0..400 {
        let o = random_options(&mut rng);
        let mut chunker = Chunker::try_new(&o).unwrap();
        let mut model = Model::default();
        let nested = LeveledBatch::random(&mut rng, 4, (2, 1));
        model.closings(&o, &nested.items());
        nested.run(&mut chunker);
        pending_seen |= model.pending;
        let width = 1 + rng.below(20) as usize;
        let b = FixedBatch::random(&mut rng, width);
        let want = model::flat_chunks(&model.closings(&o, &b.items()), b.len);
        assert_eq!(b.run(&mut chunker), want);
        assert_eq!(chunker.carry, carry_of(&model));
    }
    assert!(pending_seen);
}
