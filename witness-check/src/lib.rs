//! What the command line shares with the differential oracle (`witness-oracle`): the gcc runner
//! of native jobs (decision 222), so that the soak's correctness witnesses meet the native
//! refutation exactly as users' do (issue 51, decision 239). Everything else of the command
//! line lives in the binary (`main.rs`).

pub mod native_run;
