//! TODO(skeleton): filled in by the radio work.
