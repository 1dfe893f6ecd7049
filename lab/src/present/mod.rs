//! Presentation: the lab run's terminal summary, the reports (JUnit, JSON
//! lines), the handout and the test run's time table.

pub mod handout;
pub mod mesh;
pub mod report;
pub mod summary;
pub mod times;
