//! What the coupon passes leave for the buckets of users, on disk: a
//! user's coupons are spread over every pass, and the per-user tables
//! (claims, balances, reminders) can only be rebuilt once all of them are
//! known. Each pass appends, per bucket, its coupons' holdings (one file
//! per bucket) and its reminder steps (one file per pass and bucket, each
//! in the store's order, merged back by [`merged`]). The files live in a
//! private temporary directory, removed with the [`Spill`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use crate::domain::coupon_state::CouponStatus;

/// The spill files of one verification.
pub struct Spill {
    dir: tempfile::TempDir,
    buckets: u32,
}

impl Spill {
    /// An empty spill for `buckets` buckets of users, in the system's
    /// temporary directory (`TMPDIR`).
    pub fn new(buckets: u32) -> io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("ledger-replay-")
            .tempdir()?;
        Ok(Spill { dir, buckets })
    }

    fn holdings_path(&self, bucket: u32) -> PathBuf {
        self.dir.path().join(format!("holdings-{bucket}"))
    }

    fn steps_path(&self, pass: u32, bucket: u32) -> PathBuf {
        self.dir.path().join(format!("steps-{pass}-{bucket}"))
    }

    /// Writers appending to every bucket's holdings.
    pub fn holdings_writers(&self) -> io::Result<Writers> {
        self.writers(|b| self.holdings_path(b))
    }

    /// Writers of pass `pass`'s steps, one file per bucket.
    pub fn steps_writers(&self, pass: u32) -> io::Result<Writers> {
        self.writers(|b| self.steps_path(pass, b))
    }

    fn writers(&self, path: impl Fn(u32) -> PathBuf) -> io::Result<Writers> {
        let open = |b| {
            let file = OpenOptions::new().create(true).append(true).open(path(b))?;
            Ok(BufWriter::with_capacity(BUFFER, file))
        };
        (0..self.buckets)
            .map(open)
            .collect::<io::Result<_>>()
            .map(Writers)
    }

    /// A bucket's holdings, from every pass (none: an empty reader).
    pub fn holdings(&self, bucket: u32) -> io::Result<Reader> {
        Reader::open(self.holdings_path(bucket))
    }

    /// A bucket's steps: one reader per pass, each in the store's order.
    pub fn steps(&self, passes: u32, bucket: u32) -> io::Result<Vec<Reader>> {
        (0..passes)
            .map(|pass| Reader::open(self.steps_path(pass, bucket)))
            .collect()
    }
}

/// Buffer of each file: the writers of a pass (one per bucket, up to 256)
/// are open together, and a bucket's readers (one per pass).
const BUFFER: usize = 32 * 1024;

/// One writer per bucket.
pub struct Writers(Vec<BufWriter<File>>);

impl Writers {
    /// The writer of `bucket`.
    pub fn bucket(&mut self, bucket: u32) -> &mut impl Write {
        let i = usize::try_from(bucket).unwrap_or(usize::MAX);
        &mut self.0[i]
    }

    /// Flushes every file.
    pub fn finish(self) -> io::Result<()> {
        self.0.into_iter().try_for_each(|mut w| w.flush())
    }
}

/// A record written to a spill file and read back.
pub trait Record: Sized {
    fn write(&self, w: &mut impl Write) -> io::Result<()>;
    fn read(r: &mut Reader) -> io::Result<Self>;
}

/// Reads a spill file's records back.
pub struct Reader(Option<BufReader<File>>);

impl Reader {
    fn open(path: PathBuf) -> io::Result<Self> {
        match File::open(path) {
            Ok(file) => Ok(Reader(Some(BufReader::with_capacity(BUFFER, file)))),
            // A bucket no coupon of a pass fell into has no file.
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Reader(None)),
            Err(e) => Err(e),
        }
    }

    /// Whether every record has been read.
    pub fn at_end(&mut self) -> io::Result<bool> {
        match &mut self.0 {
            Some(r) => Ok(r.fill_buf()?.is_empty()),
            None => Ok(true),
        }
    }

    /// The next record, if any.
    pub fn record<R: Record>(&mut self) -> io::Result<Option<R>> {
        if self.at_end()? {
            return Ok(None);
        }
        R::read(self).map(Some)
    }

    fn bytes<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut out = [0; N];
        let r = self.0.as_mut().ok_or(io::ErrorKind::UnexpectedEof)?;
        r.read_exact(&mut out)?;
        Ok(out)
    }

    pub fn u8(&mut self) -> io::Result<u8> {
        Ok(self.bytes::<1>()?[0])
    }

    pub fn i64(&mut self) -> io::Result<i64> {
        self.bytes().map(i64::from_le_bytes)
    }

    pub fn u32(&mut self) -> io::Result<u32> {
        self.bytes().map(u32::from_le_bytes)
    }

    pub fn uuid(&mut self) -> io::Result<Uuid> {
        self.bytes().map(Uuid::from_bytes)
    }

    /// A string into `buf` (reused: a million records, no allocation each).
    pub fn str_into(&mut self, buf: &mut String) -> io::Result<()> {
        let len = usize::try_from(self.u32()?).map_err(io::Error::other)?;
        let r = self.0.as_mut().ok_or(io::ErrorKind::UnexpectedEof)?;
        buf.clear();
        let read = r.take(len as u64).read_to_string(buf)?;
        if read == len {
            Ok(())
        } else {
            Err(io::ErrorKind::UnexpectedEof.into())
        }
    }

    pub fn string(&mut self) -> io::Result<String> {
        let mut s = String::new();
        self.str_into(&mut s)?;
        Ok(s)
    }

    pub fn time(&mut self) -> io::Result<DateTime<Utc>> {
        let (secs, nanos) = (self.i64()?, self.u32()?);
        DateTime::from_timestamp(secs, nanos).ok_or_else(|| invalid("time"))
    }

    pub fn date(&mut self) -> io::Result<NaiveDate> {
        let days = i32::from_le_bytes(self.bytes()?);
        NaiveDate::from_num_days_from_ce_opt(days).ok_or_else(|| invalid("date"))
    }

    pub fn status(&mut self) -> io::Result<CouponStatus> {
        let code = usize::from(self.u8()?);
        CouponStatus::ALL
            .get(code)
            .copied()
            .ok_or_else(|| invalid("status"))
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("spilled {what}"))
}

/// Writing the fields [`Reader`] reads.
pub mod put {
    use super::*;

    pub fn str(w: &mut impl Write, s: &str) -> io::Result<()> {
        let len = u32::try_from(s.len()).map_err(io::Error::other)?;
        w.write_all(&len.to_le_bytes())?;
        w.write_all(s.as_bytes())
    }

    pub fn time(w: &mut impl Write, t: DateTime<Utc>) -> io::Result<()> {
        w.write_all(&t.timestamp().to_le_bytes())?;
        w.write_all(&t.timestamp_subsec_nanos().to_le_bytes())
    }

    pub fn date(w: &mut impl Write, d: NaiveDate) -> io::Result<()> {
        w.write_all(&chrono::Datelike::num_days_from_ce(&d).to_le_bytes())
    }

    pub fn status(w: &mut impl Write, s: CouponStatus) -> io::Result<()> {
        let code = CouponStatus::ALL.iter().position(|x| *x == s).unwrap_or(0);
        w.write_all(&[u8::try_from(code).unwrap_or(0)])
    }
}

/// Every record of `runs`, each sorted by `key`, in `key` order.
pub fn merged<R: Record, K: Ord>(
    mut runs: Vec<Reader>,
    key: impl Fn(&R) -> K,
    mut each: impl FnMut(R),
) -> io::Result<()> {
    let mut heads: Vec<Option<R>> = Vec::with_capacity(runs.len());
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for (i, run) in runs.iter_mut().enumerate() {
        let head = run.record::<R>()?;
        if let Some(r) = &head {
            heap.push(Reverse((key(r), i)));
        }
        heads.push(head);
    }
    while let Some(Reverse((_, i))) = heap.pop() {
        let Some(record) = heads[i].take() else {
            continue;
        };
        each(record);
        heads[i] = runs[i].record::<R>()?;
        if let Some(r) = &heads[i] {
            heap.push(Reverse((key(r), i)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number, as a record.
    #[derive(Debug, PartialEq)]
    struct N(i64);

    impl Record for N {
        fn write(&self, w: &mut impl Write) -> io::Result<()> {
            w.write_all(&self.0.to_le_bytes())
        }
        fn read(r: &mut Reader) -> io::Result<Self> {
            r.i64().map(N)
        }
    }

    #[test]
    fn runs_of_several_passes_merge_in_order() {
        let spill = Spill::new(2).unwrap();
        let runs: [&[i64]; 3] = [&[1, 4, 9], &[], &[2, 3, 10, 11]];
        for (pass, run) in runs.iter().enumerate() {
            let mut w = spill.steps_writers(u32::try_from(pass).unwrap()).unwrap();
            for n in *run {
                N(*n).write(w.bucket(1)).unwrap();
            }
            w.finish().unwrap();
        }
        let mut all = Vec::new();
        let readers = spill.steps(3, 1).unwrap();
        merged(readers, |n: &N| n.0, |n| all.push(n.0)).unwrap();
        assert_eq!(all, [1, 2, 3, 4, 9, 10, 11]);
        // A bucket nothing was written to reads empty.
        assert!(spill.holdings(0).unwrap().record::<N>().unwrap().is_none());
    }

    #[test]
    fn fields_read_back_as_written() {
        let spill = Spill::new(1).unwrap();
        let mut w = spill.holdings_writers().unwrap();
        let at = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
        let day = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let b = w.bucket(0);
        put::str(b, "ü-1").unwrap();
        put::time(b, at).unwrap();
        put::date(b, day).unwrap();
        put::status(b, CouponStatus::Void).unwrap();
        w.finish().unwrap();
        let mut r = spill.holdings(0).unwrap();
        assert_eq!(r.string().unwrap(), "ü-1");
        assert_eq!(r.time().unwrap(), at);
        assert_eq!(r.date().unwrap(), day);
        assert_eq!(r.status().unwrap(), CouponStatus::Void);
        assert!(r.at_end().unwrap());
    }
}
