//! With the `encryption` feature (`cargo test --features encryption`):
//! encryption options given to `COPY TO` are applied by the registered
//! context as by DataFusion's own sink. Encrypted files carry random nonces,
//! so two writes never have the same bytes: the file is checked by reading
//! it back with the keys (it equals the input) and without them (refused).
#![cfg(feature = "encryption")]

mod common;

use common::{batches, context, scratch};
use datafusion::prelude::{ParquetReadOptions, SessionContext, col};
use parquet_flba_datafusion::parquet_flba::DelegateReason;

const FOOTER_KEY: &str = "30313233343536373839303132333435"; // b"0123456789012345"
const PRICE_KEY: &str = "31323334353637383930313233343530"; // b"1234567890123450"

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encrypted_copy_reads_back_with_the_keys() {
    let data = batches(2, 300);
    for parallel in [true, false] {
        let dir = scratch("encrypted");
        let ctx = context(true, 1, &data).unwrap();
        let sql = format!(
            "COPY (SELECT row, id, price FROM t) TO '{}/x.parquet' STORED AS PARQUET OPTIONS (\
             'format.crypto.file_encryption.encrypt_footer' 'true', \
             'format.crypto.file_encryption.footer_key_as_hex' '{FOOTER_KEY}', \
             'format.crypto.file_encryption.column_key_as_hex::price' '{PRICE_KEY}', \
             'allow_single_file_parallelism' '{parallel}')",
            dir.display()
        );
        // Written by parquet-flba's sink (an encrypted file's leaves are
        // all `parquet`'s column writer's).
        let plan = ctx
            .sql(&sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        datafusion::physical_plan::collect(std::sync::Arc::clone(&plan), ctx.task_ctx())
            .await
            .unwrap();
        let ours = plan
            .downcast_ref::<datafusion::datasource::sink::DataSinkExec>()
            .and_then(|e| {
                e.sink()
                    .downcast_ref::<parquet_flba_datafusion::FlbaParquetSink>()
            })
            .expect("parquet-flba's sink");
        let plans = ours.written_plans();
        assert_eq!(plans.len(), 1, "parallel={parallel}");
        for plan in plans.values() {
            assert_eq!(plan.fast_count(), 0, "parallel={parallel}: {plan}");
            let price = plan
                .leaves()
                .iter()
                .find(|l| l.column_path().string() == "price")
                .expect("price");
            assert_eq!(
                price.reason(),
                Some(DelegateReason::Encrypted),
                "parallel={parallel}: {plan}"
            );
        }
        let path = dir.join("x.parquet");

        let plain = SessionContext::new();
        let refused = match plain
            .read_parquet(path.to_str().unwrap(), ParquetReadOptions::default())
            .await
        {
            Ok(df) => df.collect().await.is_err(),
            Err(_) => true,
        };
        assert!(
            refused,
            "parallel={parallel}: an encrypted file read without keys"
        );

        let keyed = SessionContext::new();
        keyed
            .sql(&format!(
                "CREATE EXTERNAL TABLE back STORED AS PARQUET LOCATION '{}' OPTIONS (\
                 'format.crypto.file_decryption.footer_key_as_hex' '{FOOTER_KEY}', \
                 'format.crypto.file_decryption.column_key_as_hex::price' '{PRICE_KEY}')",
                path.display()
            ))
            .await
            .unwrap();
        let got = keyed
            .table("back")
            .await
            .unwrap()
            .sort(vec![col("row").sort(true, false)])
            .unwrap()
            .collect()
            .await
            .unwrap();
        let rows: usize = got.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 600, "parallel={parallel}");
        let want = ctx
            .sql("SELECT row, id, price FROM t ORDER BY row")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let concat = |b: &[datafusion::arrow::array::RecordBatch]| {
            datafusion::arrow::compute::concat_batches(&b[0].schema(), b).unwrap()
        };
        let (got, want) = (concat(&got), concat(&want));
        for i in 0..want.num_columns() {
            assert_eq!(
                got.column(i).to_data(),
                want.column(i).to_data(),
                "parallel={parallel}: column {i}"
            );
        }
    }
}
