//! The gear tables: one table of 256 pseudo-random 64-bit words per step of
//! a chunk's run of matches.
//!
//! The words are not pasted from anywhere; they are derived at first use from
//! the published rule shared by Arrow C++ and arrow-rs: word `byte` of table
//! `seed` is the first eight bytes, read big-endian, of the MD5 digest of a
//! 128-byte message whose first half is all `seed` and second half all
//! `byte`.

use std::sync::OnceLock;

/// How many tables there are, which is also how many matches in a row close
/// a chunk.
pub(super) const TABLE_COUNT: usize = 8;

/// One gear table: the word each byte value adds to the hash.
pub(super) type Table = [u64; 256];

/// All tables, in the order a run steps through them.
pub(super) type Tables = [Table; TABLE_COUNT];

/// The tables, derived once per process.
pub(super) fn tables() -> &'static Tables {
    static DERIVED: OnceLock<Box<Tables>> = OnceLock::new();
    DERIVED.get_or_init(|| {
        let mut all = Box::new([[0u64; 256]; TABLE_COUNT]);
        for (seed, table) in (0u8..).zip(all.iter_mut()) {
            for (byte, word) in (0u8..=255).zip(table.iter_mut()) {
                *word = derive(seed, byte);
            }
        }
        all
    })
}

/// Word `byte` of table `seed`.
fn derive(seed: u8, byte: u8) -> u64 {
    let mut message = [byte; 128];
    message[..64].fill(seed);
    let digest = md5(&message);
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(head)
}

/// Per-step left-rotation amounts of MD5, four per round.
const ROTATIONS: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// MD5 (RFC 1321) of a message; only ever used on short ones.
pub(super) fn md5(message: &[u8]) -> [u8; 16] {
    // The additive constants: floor(2^32 * |sin(step + 1)|).
    let sines: [u32; 64] =
        std::array::from_fn(|step| ((step as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32);
    let mut padded = message.to_vec();
    padded.push(0x80);
    padded.resize(padded.len().next_multiple_of(64), 0);
    if padded.len() - message.len() - 1 < 8 {
        padded.resize(padded.len() + 64, 0);
    }
    let bits = (message.len() as u64).wrapping_mul(8).to_le_bytes();
    let tail = padded.len() - 8;
    padded[tail..].copy_from_slice(&bits);

    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    for block in padded.chunks_exact(64) {
        let word = |k: usize| {
            let mut le = [0u8; 4];
            le.copy_from_slice(&block[4 * k..4 * k + 4]);
            u32::from_le_bytes(le)
        };
        let [mut a, mut b, mut c, mut d] = state;
        for step in 0..64 {
            let round = step / 16;
            let (mix, k) = match round {
                0 => (d ^ (b & (c ^ d)), step),
                1 => (c ^ (d & (b ^ c)), (5 * step + 1) % 16),
                2 => (b ^ c ^ d, (3 * step + 5) % 16),
                _ => (c ^ (b | !d), (7 * step) % 16),
            };
            let sum = a
                .wrapping_add(mix)
                .wrapping_add(sines[step])
                .wrapping_add(word(k));
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(sum.rotate_left(ROTATIONS[round][step % 4]));
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    let mut digest = [0u8; 16];
    for (out, s) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&s.to_le_bytes());
    }
    digest
}
