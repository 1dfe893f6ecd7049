//! Presentation: the doctor's report, the mesh's matrix, diagnosis and
//! reports (JUnit, JSON Lines, the page), and JUnit's pieces the lab's
//! report shares.

pub mod doctor;
pub mod mesh;
pub mod xml;
