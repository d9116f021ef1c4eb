"""Threads: the same file on any number of threads, the GIL released while
encoding, writers in several Python threads at once, Ctrl-C, a large table."""

import io
import signal
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import parquet_flba
from conftest import fast_leaves, flba_and_oracle, read, write_bytes


def wide(n, seed=1):
    rng = np.random.default_rng(seed)
    words = rng.integers(-(2**62), 2**62, size=(n, 2), dtype=np.int64)
    words[:, 1] >>= 8
    d128 = pa.Array.from_buffers(pa.decimal128(38, 4), n, [None, pa.py_buffer(words.tobytes())])
    uuid = pa.Array.from_buffers(pa.binary(16), n, [None, pa.py_buffer(rng.bytes(16 * n))])
    return pa.table({
        "uuid": uuid,
        "amount": d128,
        "qty": pa.array(rng.integers(0, 10_000, n)),
        "sym": pa.array(np.array(["AAPL", "MSFT", "GOOG", "AMZN", "NVDA"])[rng.integers(0, 5, n)]),
    })


@pytest.mark.parametrize("kwargs", [{}, {"compression": "zstd", "row_group_size": 50_000}, {"compression": "none"}])
def test_same_bytes_on_any_number_of_threads(kwargs):
    t = wide(200_000)
    one = write_bytes(t, threads=1, **kwargs)
    for n in (2, 4, 8):
        assert write_bytes(t, threads=n, **kwargs) == one
    ours, theirs = flba_and_oracle(t, **kwargs)
    assert ours == one == theirs


def test_gil_released_while_encoding():
    t = wide(1_000_000)
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        start = time.perf_counter()
        write_bytes(t, threads=1, compression="zstd")
        end = time.perf_counter()
    finally:
        done.set()
        th.join()
    during = [x for x in ticks if start <= x <= end]
    # With the GIL held for the whole write the ticker could not run at all.
    assert len(during) >= max(3, int((end - start) / 0.001 * 0.1)), (len(during), end - start)


def test_writers_in_several_python_threads():
    tables = [wide(100_000, seed=s) for s in range(4)]
    expected = [write_bytes(t, threads=1) for t in tables]
    results = [None] * 4

    def run(i):
        results[i] = write_bytes(tables[i], threads=2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == expected


@pytest.fixture
def sigint_raises():
    """Python's own SIGINT handler for the test: a process started with
    SIGINT ignored (a background job of a shell without job control) keeps
    it ignored, and `_thread.interrupt_main` then does nothing."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_keyboard_interrupt_stops_a_long_write(tmp_file, sigint_raises):
    # Ctrl-C while the writer encodes (GIL released): Python's handler only
    # sets a flag, which the writer checks between batches.
    import _thread

    t = wide(2_000)
    many = pa.Table.from_batches(t.to_batches() * 5_000)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            parquet_flba.write_table(many, tmp_file, threads=1)
    finally:
        timer.cancel()
    full = write_time(t, 100) * 50
    assert time.perf_counter() - start < full, "the write was not interrupted"
    assert not tmp_file.exists()


def write_time(t, batches):
    start = time.perf_counter()
    write_bytes(pa.Table.from_batches(t.to_batches() * batches), threads=1)
    return time.perf_counter() - start


def test_keyboard_interrupt_in_a_python_producer(tmp_file, sigint_raises):
    # Ctrl-C while a Python generator makes the batches: pyarrow's reader
    # turns it into a stream error, which is raised as KeyboardInterrupt.
    import _thread

    t = wide(2_000)

    def batches():
        for i in range(10_000):
            if i == 5:
                _thread.interrupt_main()
            yield t.to_batches()[0]

    reader = pa.RecordBatchReader.from_batches(t.schema, batches())
    with pytest.raises(KeyboardInterrupt):
        parquet_flba.write_table(reader, tmp_file)
    assert not tmp_file.exists()


def test_large_table(tmp_file):
    t = wide(3_000_000)
    assert {"uuid", "amount"} <= fast_leaves(t)
    parquet_flba.write_table(t, tmp_file, compression="zstd")
    back = read(tmp_file.read_bytes())
    assert back.num_rows == 3_000_000
    import pyarrow.parquet as pq

    assert pq.ParquetFile(tmp_file).metadata.num_row_groups == 3
    assert back.equals(t)
    assert tmp_file.read_bytes() == write_bytes(t, compression="zstd", _oracle=True)


def test_file_object_written_in_pieces_from_worker_threads():
    t = wide(300_000)
    sink = io.BytesIO()
    parquet_flba.write_table(t, sink, threads=4)
    assert sink.getvalue() == write_bytes(t, threads=1)


def test_writer_touched_from_its_own_producer_does_not_deadlock(tmp_file):
    # A lock held by a write is never waited for with the GIL held: the
    # producer below runs inside the write (same thread, GIL taken).
    t = pa.table({"a": [1, 2]})
    seen = {}
    w = parquet_flba.ParquetWriter(tmp_file, t.schema)

    def batches():
        seen["open"] = w.is_open
        try:
            w.write_table(t)
        except ValueError as e:
            seen["error"] = str(e)
        yield t.to_batches()[0]

    w.write_table(pa.RecordBatchReader.from_batches(t.schema, batches()))
    w.close()
    assert seen == {"open": True, "error": "the writer is busy with another write"}
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_file).num_rows == 2
