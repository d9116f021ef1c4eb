//! Parquet modular encryption of the written files, set up as DataFusion's
//! sink sets it up: properties given in the options, or made by the
//! runtime's encryption factory named there.
//!
//! Without the `encryption` feature this build cannot encrypt, and it never
//! writes a plaintext file where encryption was asked for: encryption
//! options (properties given in the options, or an encryption factory named
//! there) are refused with an error that says how to turn the feature on.
//! Stock DataFusion with `parquet_encryption` would encrypt; without it, it
//! ignores the given properties, which this crate does not copy.

use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::config::TableParquetOptions;
use datafusion::error::Result;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::object_store::path::Path;
use parquet_flba::parquet::file::properties::WriterPropertiesBuilder;

/// `builder` with the encryption the options ask for the file at `path`.
#[cfg(feature = "encryption")]
pub(crate) async fn apply(
    builder: WriterPropertiesBuilder,
    runtime: &Arc<RuntimeEnv>,
    options: &TableParquetOptions,
    schema: &Arc<Schema>,
    path: &Path,
) -> Result<WriterPropertiesBuilder> {
    if options.crypto.file_encryption.is_some() {
        return given(builder, options, path);
    }
    if let Some(id) = &options.crypto.factory_id {
        let factory = runtime.parquet_encryption_factory(id)?;
        let made = factory
            .get_file_encryption_properties(&options.crypto.factory_options, schema, path)
            .await?;
        if let Some(props) = made {
            return Ok(builder.with_file_encryption_properties(props));
        }
    }
    Ok(builder)
}

/// `builder` with the encryption properties given in the options, if any
/// (an encryption factory is asked per file, by [`apply`], and not here).
#[cfg(feature = "encryption")]
pub(crate) fn given(
    builder: WriterPropertiesBuilder,
    options: &TableParquetOptions,
    _path: &Path,
) -> Result<WriterPropertiesBuilder> {
    use parquet_flba::parquet::encryption::encrypt::FileEncryptionProperties;
    match &options.crypto.file_encryption {
        Some(given) => {
            let props = FileEncryptionProperties::try_from(given.clone())?;
            Ok(builder.with_file_encryption_properties(Arc::new(props)))
        }
        None => Ok(builder),
    }
}

/// Without the `encryption` feature: `builder` unchanged if the options ask
/// for no encryption, the error of [`refuse`] otherwise.
#[cfg(not(feature = "encryption"))]
#[allow(clippy::unused_async)]
pub(crate) async fn apply(
    builder: WriterPropertiesBuilder,
    _runtime: &Arc<RuntimeEnv>,
    options: &TableParquetOptions,
    _schema: &Arc<Schema>,
    path: &Path,
) -> Result<WriterPropertiesBuilder> {
    given(builder, options, path)
}

/// Without the `encryption` feature: as [`apply`].
#[cfg(not(feature = "encryption"))]
pub(crate) fn given(
    builder: WriterPropertiesBuilder,
    options: &TableParquetOptions,
    path: &Path,
) -> Result<WriterPropertiesBuilder> {
    refuse(options, path)?;
    Ok(builder)
}

/// The error for encryption options this build cannot honour.
#[cfg(not(feature = "encryption"))]
fn refuse(options: &TableParquetOptions, path: &Path) -> Result<()> {
    use datafusion::common::DataFusionError;
    let asked = match (&options.crypto.file_encryption, &options.crypto.factory_id) {
        (Some(_), _) => {
            "file encryption properties ('format.crypto.file_encryption.*')".to_string()
        }
        (None, Some(id)) => format!("the parquet encryption factory '{id}'"),
        (None, None) => return Ok(()),
    };
    Err(DataFusionError::Configuration(format!(
        "parquet-flba-datafusion cannot encrypt '{path}': the options ask for {asked}, \
         but this build has no `encryption` feature. Enable it \
         (`parquet-flba-datafusion = {{ features = [\"encryption\"] }}`), or write \
         this file without parquet-flba; it will not write the file in plaintext."
    )))
}
