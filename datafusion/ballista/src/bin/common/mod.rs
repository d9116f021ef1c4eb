//! Command-line options of the two binaries: `--name value` or
//! `--name=value`, each name at most once.

use std::collections::HashMap;
use std::str::FromStr;

/// The options given, by name.
pub struct Args(HashMap<String, String>);

impl Args {
    /// The process's options, all among `known`; `--help` prints `usage`
    /// and exits.
    pub fn parse(usage: &str, known: &[&str]) -> Result<Self, String> {
        let mut given = HashMap::new();
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            if arg == "--help" || arg == "-h" {
                println!("{usage}");
                std::process::exit(0);
            }
            let Some(option) = arg.strip_prefix("--") else {
                return Err(format!("unexpected argument '{arg}'\n\n{usage}"));
            };
            let (name, value) = match option.split_once('=') {
                Some((name, value)) => (name.to_string(), value.to_string()),
                None => {
                    let value = args
                        .next()
                        .ok_or_else(|| format!("--{option} needs a value\n\n{usage}"))?;
                    (option.to_string(), value)
                }
            };
            if !known.contains(&name.as_str()) {
                return Err(format!("unknown option --{name}\n\n{usage}"));
            }
            if given.insert(name.clone(), value).is_some() {
                return Err(format!("--{name} given twice"));
            }
        }
        Ok(Self(given))
    }

    /// The value of `--name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The value of `--name`, or `default`.
    pub fn text(&self, name: &str, default: &str) -> String {
        self.get(name).unwrap_or(default).to_string()
    }

    /// The value of `--name` parsed, or `default`.
    pub fn number<T: FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("--{name}: '{v}' is not a valid number")),
        }
    }
}
