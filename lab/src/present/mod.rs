//! Presentation: the lab run's terminal summary, the doctor's report, the
//! benchmarks' figures, the reports (JUnit, JSON Lines), the handout and
//! the test run's time table.

pub mod bench;
pub mod handout;
pub mod mesh;
pub mod report;
pub mod summary;
pub mod times;
