//! The paper a handout prints on.

/// The paper a handout prints on: A4 unless asked, as most of the world
/// prints; the check prints each lab on both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4, 210 x 297 mm.
    #[default]
    A4,
    /// US Letter, 8.5 x 11 in.
    Letter,
}

impl Paper {
    /// Both, the default first.
    pub const ALL: [Paper; 2] = [Paper::A4, Paper::Letter];

    /// Its name on the command line: `a4`, `letter`.
    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "a4",
            Paper::Letter => "letter",
        }
    }

    /// The paper `--paper NAME` names.
    pub fn from_name(name: &str) -> Option<Paper> {
        Paper::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Its page rule, which the HTML carries so that a browser's print
    /// and Chromium's PDF use it.
    pub fn css(self) -> &'static str {
        match self {
            Paper::A4 => "@page { size: A4; margin: 15mm 14mm; }",
            Paper::Letter => "@page { size: letter; margin: 0.6in 0.55in; }",
        }
    }
}

#[cfg(test)]
mod tests;
