//! `parquet_flba.*`: the session settings of parquet-flba, a DataFusion
//! [`ConfigExtension`].

use datafusion::common::extensions_options;
use datafusion::config::{ConfigExtension, ConfigOptions};

extensions_options! {
    /// parquet-flba's settings in a DataFusion session, under the prefix
    /// `parquet_flba`. [`crate::register`] and [`crate::configure`] add them
    /// to the session, so that `SET parquet_flba.enabled = false` (or
    /// `SessionConfig::set_bool("parquet_flba.enabled", false)`) applies to
    /// the statements planned afterwards; `SHOW ALL` lists them.
    ///
    /// They are read when a write is planned: by the parquet format
    /// ([`crate::FlbaParquetFormat`]) and the optimizer rule
    /// ([`crate::FlbaParquetSinkRule`]). A session without them behaves as
    /// with the defaults.
    pub struct FlbaOptions {
        /// Write parquet through parquet-flba (`true`, the default) or
        /// through DataFusion's own parquet sink (`false`): the statements
        /// planned while it is off get DataFusion's `ParquetSink`,
        /// unchanged.
        pub enabled: bool, default = true
        /// Threads that encode the columns of one file with parquet-flba's
        /// own threaded engine (`AsyncArrowWriter::with_threads`): 0 (the
        /// default) chooses: the parallel path
        /// (`allow_single_file_parallelism`, DataFusion's default) encodes
        /// each file on parquet-flba's worker pool (as many threads as the
        /// machine has cores, `parquet_flba::worker_threads`), the
        /// sequential path (`allow_single_file_parallelism` off, or
        /// content-defined chunking on) on the file's task alone. Above 1:
        /// that many threads per file on both paths. 1: no engine threads:
        /// the sequential path on the file's task, the parallel path as
        /// DataFusion lays it out (one task per leaf column). The files
        /// are the same whatever the count.
        pub threads: usize, default = 0
        /// Ballista: whether a write's raw parquet encryption keys
        /// (`format.crypto.file_encryption.*` / `file_decryption.*` key
        /// options) may travel from the scheduler to the executors inside
        /// the plan, in plaintext (`false`, the default: a write given such
        /// keys is refused when its plan is sent; give the executors an
        /// encryption factory instead, `format.crypto.factory_id`, which
        /// travels without keys). Read when the write is planned; without
        /// Ballista nothing travels and it changes nothing.
        pub send_encryption_keys: bool, default = false
    }
}

impl ConfigExtension for FlbaOptions {
    const PREFIX: &'static str = "parquet_flba";
}

impl FlbaOptions {
    /// The settings in `config` (the defaults if the session has none).
    pub fn from_config(config: &ConfigOptions) -> Self {
        config.extensions.get::<Self>().cloned().unwrap_or_default()
    }

    /// Adds the settings, with their defaults, to `config` unless it has
    /// them already.
    pub(crate) fn install(config: &mut ConfigOptions) {
        if config.extensions.get::<Self>().is_none() {
            config.extensions.insert(Self::default());
        }
    }
}
