//! Presentation: the reports (JUnit, JSON lines) and the handout.

pub mod handout;
pub mod mesh;
pub mod report;
