//! Two catalogues of one game as one: every table of the first, then every table of the second,
//! whose jobs may read the first's tables (the Morris moving phase, then the opening that
//! leads into it).

use super::{Build, BuildError, Catalogue, Needs, Reference};
use crate::progress::Progress;
use crate::solve::{CheckedParts, Consistency};
use crate::table::{Counts, FileSpec};
use std::fmt;
use std::path::Path;

/// The tables of `first`, then those of `second` when there is one.
#[derive(Debug)]
pub struct Chain<A, B> {
    /// Built, listed and checked first.
    pub first: A,
    /// Built after every job of `first`; `None` leaves it out (`--no-opening`).
    pub second: Option<B>,
}

/// A key or a job of one of the two catalogues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link<A, B> {
    /// Of the first catalogue.
    First(A),
    /// Of the second.
    Second(B),
}

impl<A: fmt::Display, B: fmt::Display> fmt::Display for Link<A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::First(a) => a.fmt(f),
            Link::Second(b) => b.fmt(f),
        }
    }
}

impl<A: Catalogue, B: Catalogue> Chain<A, B> {
    fn links<T, U>(&self, first: Vec<T>, second: impl FnOnce(&B) -> Vec<U>) -> Vec<Link<T, U>> {
        let second = self.second.as_ref().map(second).unwrap_or_default();
        first.into_iter().map(Link::First).chain(second.into_iter().map(Link::Second)).collect()
    }

    fn second(&self) -> &B {
        // A `Link::Second` comes only from `keys()` or `jobs()`, which give none without it.
        self.second.as_ref().expect("keys and jobs of the second catalogue exist only with it")
    }
}

impl<A: Catalogue, B: Catalogue> Catalogue for Chain<A, B> {
    type Key = Link<A::Key, B::Key>;
    type Job = Link<A::Job, B::Job>;

    fn name(&self) -> String {
        self.first.name()
    }

    fn title(&self) -> String {
        match &self.second {
            Some(second) => format!("{}\n{}", self.first.title(), second.title()),
            None => self.first.title(),
        }
    }

    fn section(&self, key: Self::Key) -> String {
        match key {
            Link::First(k) => self.first.section(k),
            Link::Second(k) => self.second().section(k),
        }
    }

    fn keys(&self) -> Vec<Self::Key> {
        self.links(self.first.keys(), B::keys)
    }

    fn table(&self, dir: &Path, key: Self::Key) -> FileSpec {
        match key {
            Link::First(k) => self.first.table(dir, k),
            Link::Second(k) => self.second().table(dir, k),
        }
    }

    fn set(&self, dir: &Path, key: Self::Key) -> Option<FileSpec> {
        match key {
            Link::First(k) => self.first.set(dir, k),
            Link::Second(k) => self.second().set(dir, k),
        }
    }

    fn index_size(&self, key: Self::Key) -> u64 {
        match key {
            Link::First(k) => self.first.index_size(k),
            Link::Second(k) => self.second().index_size(k),
        }
    }

    fn reference(&self, key: Self::Key) -> Reference {
        match key {
            Link::First(k) => self.first.reference(k),
            Link::Second(k) => self.second().reference(k),
        }
    }

    fn reference_match(&self, dir: &Path, key: Self::Key, counts: &Counts) -> Option<bool> {
        match key {
            Link::First(k) => self.first.reference_match(dir, k, counts),
            Link::Second(k) => self.second().reference_match(dir, k, counts),
        }
    }

    fn jobs(&self) -> Vec<Self::Job> {
        self.links(self.first.jobs(), B::jobs)
    }

    fn outputs(&self, dir: &Path, job: Self::Job) -> Vec<FileSpec> {
        match job {
            Link::First(j) => self.first.outputs(dir, j),
            Link::Second(j) => self.second().outputs(dir, j),
        }
    }

    fn inputs(&self, dir: &Path, job: Self::Job) -> Vec<FileSpec> {
        match job {
            Link::First(j) => self.first.inputs(dir, j),
            Link::Second(j) => self.second().inputs(dir, j),
        }
    }

    fn needs(&self, dir: &Path, job: Self::Job) -> Needs {
        match job {
            Link::First(j) => self.first.needs(dir, j),
            Link::Second(j) => self.second().needs(dir, j),
        }
    }

    fn build(&self, dir: &Path, job: Self::Job, build: &Build) -> Result<String, BuildError> {
        match job {
            Link::First(j) => self.first.build(dir, j, build),
            Link::Second(j) => self.second().build(dir, j, build),
        }
    }

    fn check(
        &self,
        dir: &Path,
        key: Self::Key,
        parts: Option<&dyn CheckedParts>,
        progress: &Progress,
    ) -> Result<Option<Consistency>, BuildError> {
        match key {
            Link::First(k) => self.first.check(dir, k, parts, progress),
            Link::Second(k) => self.second().check(dir, k, parts, progress),
        }
    }

    fn describe(&self, dir: &Path, key: Self::Key, index: u64) -> String {
        match key {
            Link::First(k) => self.first.describe(dir, k, index),
            Link::Second(k) => self.second().describe(dir, k, index),
        }
    }

    fn variant(&self) -> super::Variant {
        match &self.second {
            Some(second) => second.variant(),
            None => self.first.variant(),
        }
    }
}
