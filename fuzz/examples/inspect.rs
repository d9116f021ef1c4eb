//! Decode a fuzz input as the differential/roundtrip targets do, write it
//! with both implementations and print the scenario and both files'
//! decoded metadata and page headers (or the first difference).
//!
//! ```sh
//! cargo run --example inspect -- fuzz/regressions/differential/NAME        # differences only
//! cargo run --example inspect -- fuzz/regressions/differential/NAME --all  # every fact of both files
//! ```

use parquet_flba_fuzz::describe::{compare_files, describe_file};
use parquet_flba_fuzz::input::ByteReader;
use parquet_flba_fuzz::scenario::Scenario;
use parquet_flba_fuzz::writers::{flba, up};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("usage: inspect INPUT_FILE [--all]");
    let all = args.iter().any(|a| a == "--all");
    let data = std::fs::read(path).expect("read the input");
    let sc = Scenario::decode(&mut ByteReader::new(&data), true);
    println!("{}", sc.describe());
    let u = up::write(&sc.schema, &sc.batches, &sc.opts, &sc.api);
    let f = flba::write(&sc.schema, &sc.batches, &sc.opts, &sc.api);
    match (&u, &f) {
        (Ok(u), Ok(f)) => {
            println!("parquet steps:      {:?}", u.steps);
            println!("parquet_flba steps: {:?}", f.steps);
            match compare_files(&u.bytes, &f.bytes) {
                Some(diff) => println!("{diff}"),
                None => println!("files are identical ({} bytes)", u.bytes.len()),
            }
            if all {
                for (name, w) in [("parquet", u), ("parquet_flba", f)] {
                    println!("== {name}");
                    for line in describe_file(&w.bytes) {
                        println!("  {line}");
                    }
                }
            }
        }
        _ => {
            println!("parquet: {:?}", u.as_ref().map(|w| w.bytes.len()));
            println!("parquet_flba: {:?}", f.as_ref().map(|w| w.bytes.len()));
        }
    }
}
