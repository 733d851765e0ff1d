//! The plan traits, for a glob import: `use polymul::prelude::*;` makes
//! every plan's methods callable ([`Plan`], [`Product`], [`Transform`],
//! [`DevicePlan`]).

pub use crate::{DevicePlan, Plan, Product, Tensor, Transform};
