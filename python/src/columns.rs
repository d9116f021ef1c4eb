//! Column names in keywords (`compression={"a": "zstd"}`,
//! `use_dictionary=["a"]`, `bloom_filter_options`, ...) resolved to the
//! file's leaf columns.
//!
//! A name is a leaf's dotted path (`"a"`, `"s.x"`, `"l.list.element"`, as
//! pyarrow names them), or the path of a group (a struct, list or map
//! column), which stands for every leaf below it. A name that matches no
//! column is an error, never ignored.

use crate::errors::{Failure, Result};
use crate::versions::Schema;
use crate::versions::parquet::arrow::ArrowSchemaConverter;
use crate::versions::parquet::schema::types::{ColumnPath, SchemaDescriptor};

/// The leaf columns of the file, by path.
pub struct Columns {
    leaves: Vec<ColumnPath>,
}

impl Columns {
    /// The leaves of the Parquet schema that `schema` is written as.
    pub fn of(schema: &Schema) -> Result<Columns> {
        let descr: SchemaDescriptor = ArrowSchemaConverter::new().convert(schema)?;
        let leaves = descr.columns().iter().map(|c| c.path().clone()).collect();
        Ok(Columns { leaves })
    }

    /// The leaves named by `name` (see the module docs), for `keyword`'s
    /// error message.
    pub fn resolve(&self, keyword: &str, name: &str) -> Result<Vec<ColumnPath>> {
        let parts: Vec<&str> = name.split('.').collect();
        let found: Vec<ColumnPath> = self
            .leaves
            .iter()
            .filter(|leaf| {
                let leaf = leaf.parts();
                leaf.len() >= parts.len() && leaf.iter().zip(&parts).all(|(a, b)| a == b)
            })
            .cloned()
            .collect();
        if found.is_empty() {
            let known: Vec<String> = self.leaves.iter().map(|p| p.string()).collect();
            return Err(Failure::Value(format!(
                "{keyword}: no column {name:?} in the file (its columns: {})",
                known.join(", ")
            )));
        }
        Ok(found)
    }

    /// Every leaf.
    pub fn all(&self) -> &[ColumnPath] {
        &self.leaves
    }
}
