//! Which kind of layer a directory of rules is.

/// Which kind of layer a directory of rules is; the order is the priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerKind {
    /// Rules embedded in the binary.
    Package,
    /// `<bundle>/.claude/conditions/`.
    Bundle,
    /// `<profile>/.claude/conditions/`, one per profile of the chain.
    Profile,
    /// `$HOOKDEX_HOME/conditions/`.
    Runtime,
    /// The repository's own rules; runs only when the repository is trusted.
    Directory,
    /// `$HOOKDEX_MANAGED_DIR/conditions/`; nothing overrides or disables it.
    Managed,
}

impl LayerKind {
    const ALL: [LayerKind; 6] = [
        LayerKind::Package,
        LayerKind::Bundle,
        LayerKind::Profile,
        LayerKind::Runtime,
        LayerKind::Directory,
        LayerKind::Managed,
    ];

    /// The stable code stored in the index.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind stored under `code`.
    pub fn from_code(code: u8) -> Option<LayerKind> {
        LayerKind::ALL.get(usize::from(code)).copied()
    }

    /// Whether the person (or their bundle, profile or repository) writes
    /// this layer's rules: not the package, shipped in the binary, nor
    /// the administrator's managed layer. An invalid file here is a rule
    /// the person wrote that does not run.
    pub fn is_persons(self) -> bool {
        !matches!(self, LayerKind::Package | LayerKind::Managed)
    }

    /// Whether a rule of layer `higher` (this kind) that overrides a rule
    /// of layer `lower` (of kind `lower_kind`) shadows it: the hidden rule
    /// was shipped to the person (the package, a bundle, a profile) and
    /// the one that hides it is in another layer the person or their
    /// repository controls (the managed layer is the administrator's, and
    /// a folder that replaces its own layer's rule is not shadowing).
    /// `doctor`, `compile --check` and the hook's session notice all ask
    /// this one question.
    pub fn shadows(self, higher: u16, lower_kind: LayerKind, lower: u16) -> bool {
        higher != lower
            && self != LayerKind::Managed
            && matches!(
                lower_kind,
                LayerKind::Package | LayerKind::Bundle | LayerKind::Profile
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_shipped_rule_hidden_by_another_non_managed_layer_is_shadowed() {
        assert!(LayerKind::Runtime.shadows(3, LayerKind::Profile, 2));
        assert!(LayerKind::Directory.shadows(4, LayerKind::Package, 0));
        assert!(LayerKind::Profile.shadows(3, LayerKind::Profile, 2));
        assert!(!LayerKind::Managed.shadows(5, LayerKind::Bundle, 1));
        assert!(!LayerKind::Directory.shadows(4, LayerKind::Runtime, 3));
        assert!(!LayerKind::Directory.shadows(4, LayerKind::Directory, 4));
    }

    #[test]
    fn codes_round_trip() {
        for code in 0..6 {
            assert_eq!(LayerKind::from_code(code).unwrap().code(), code);
        }
        assert_eq!(LayerKind::from_code(6), None);
    }
}
