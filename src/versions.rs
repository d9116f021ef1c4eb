// The one place that names the parquet release this build writes like.
//
// `include!`d at the root of the library and of every test, bench, example
// and binary crate of the package (and of the fuzz harness), so that
// `parquet::...`, `arrow_array::...` and the other arrow crates resolve to
// the selected release everywhere: `extern crate X as Y;` at a crate root
// puts `Y` into the extern prelude.
//
// Exactly one of the features `parquet-60` (the default), `parquet-59` and
// `parquet-58` is on. Behaviour that differs between the releases lives in `src/compat/`.

#[cfg(any(
    all(feature = "parquet-59", feature = "parquet-60"),
    all(feature = "parquet-58", feature = "parquet-60"),
    all(feature = "parquet-58", feature = "parquet-59"),
))]
compile_error!(
    "parquet-flba: the features `parquet-58`, `parquet-59` and `parquet-60` are mutually \
     exclusive; for parquet 59 use `default-features = false, features = [\"parquet-59\"]` \
     (and likewise for 58)"
);
#[cfg(not(any(feature = "parquet-58", feature = "parquet-59", feature = "parquet-60")))]
compile_error!(
    "parquet-flba: enable exactly one of the features `parquet-60` (the default), \
     `parquet-59` and `parquet-58`"
);

#[cfg(feature = "parquet-60")]
#[doc(hidden)]
pub extern crate arrow_array_60 as arrow_array;
#[cfg(feature = "parquet-60")]
#[doc(hidden)]
pub extern crate arrow_buffer_60 as arrow_buffer;
#[cfg(feature = "parquet-60")]
#[doc(hidden)]
pub extern crate arrow_data_60 as arrow_data;
#[cfg(feature = "parquet-60")]
#[doc(hidden)]
pub extern crate arrow_schema_60 as arrow_schema;
#[cfg(feature = "parquet-60")]
#[doc(hidden)]
pub extern crate arrow_select_60 as arrow_select;
#[cfg(feature = "parquet-60")]
#[doc(hidden)]
pub extern crate parquet_60 as parquet;

#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
#[doc(hidden)]
pub extern crate arrow_array_59 as arrow_array;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
#[doc(hidden)]
pub extern crate arrow_buffer_59 as arrow_buffer;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
#[doc(hidden)]
pub extern crate arrow_data_59 as arrow_data;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
#[doc(hidden)]
pub extern crate arrow_schema_59 as arrow_schema;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
#[doc(hidden)]
pub extern crate arrow_select_59 as arrow_select;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
#[doc(hidden)]
pub extern crate parquet_59 as parquet;

#[cfg(all(feature = "parquet-58", not(any(feature = "parquet-59", feature = "parquet-60"))))]
#[doc(hidden)]
pub extern crate arrow_array_58 as arrow_array;
#[cfg(all(feature = "parquet-58", not(any(feature = "parquet-59", feature = "parquet-60"))))]
#[doc(hidden)]
pub extern crate arrow_buffer_58 as arrow_buffer;
#[cfg(all(feature = "parquet-58", not(any(feature = "parquet-59", feature = "parquet-60"))))]
#[doc(hidden)]
pub extern crate arrow_data_58 as arrow_data;
#[cfg(all(feature = "parquet-58", not(any(feature = "parquet-59", feature = "parquet-60"))))]
#[doc(hidden)]
pub extern crate arrow_schema_58 as arrow_schema;
#[cfg(all(feature = "parquet-58", not(any(feature = "parquet-59", feature = "parquet-60"))))]
#[doc(hidden)]
pub extern crate arrow_select_58 as arrow_select;
#[cfg(all(feature = "parquet-58", not(any(feature = "parquet-59", feature = "parquet-60"))))]
#[doc(hidden)]
pub extern crate parquet_58 as parquet;
