//! The one list per wrapped object: [`saved!`] makes, from the list of an
//! object's function pointers that the preload library wraps (each with its
//! wrapper), the struct that keeps the provider's own, its save, the
//! wrappers' install and the restore. A wrapped op added to an object is a
//! line of its list, and its wrapper.

/// `saved! { /// doc  struct NAME of TYPE, INSTALL { field: Type => wrapper, ... } }`:
/// `struct NAME` with a `field: Type` per line, and
///
/// - `NAME::save(&obj)`: the object's pointers, copied;
/// - `NAME::install(&mut obj)`: each replaced with its wrapper, always
///   (`always`: libibverbs never leaves a context's op NULL) or only where
///   the provider set one (`where_set`: an extended QP or CQ has only the
///   calls its creator asked for);
/// - `saved.restore(&mut obj)`: the saved pointers put back.
macro_rules! saved {
    (
        $(#[$doc:meta])*
        struct $name:ident of $obj:ty, $install:ident {
            $( $field:ident: $ty:ty => $wrapper:path, )*
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub(super) struct $name {
            $( $field: $ty, )*
        }

        impl $name {
            /// The object's own pointers.
            pub(super) fn save(o: &$obj) -> Self {
                $name { $( $field: o.$field, )* }
            }

            /// The wrappers in the object.
            pub(super) fn install(o: &mut $obj) {
                $( saved!(@$install o.$field, $wrapper); )*
            }

            /// The saved pointers back in the object.
            pub(super) fn restore(self, o: &mut $obj) {
                $( o.$field = self.$field; )*
            }
        }
    };
    (@always $place:expr, $wrapper:path) => {
        $place = Some($wrapper);
    };
    (@where_set $place:expr, $wrapper:path) => {
        if $place.is_some() {
            $place = Some($wrapper);
        }
    };
}
pub(super) use saved;
