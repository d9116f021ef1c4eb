//! parquet 58.4: not yet ported.

compile_error!("parquet-flba: the `parquet-58` feature is being ported and does not build yet");
