//! `doctor`: this host's RDMA setup, and with `--peer` the path to a peer.

use super::args::*;
use crate::host::places::Places;
use crate::{guest, host, model};

/// `doctor [OPTIONS]`, its binaries where `places` says.
pub(super) fn doctor_cmd(args: &[String], places: &dyn Places) -> Result<bool, String> {
    let mut opts = getopts::Options::new();
    for value in TWO_HOST_VALUES.iter().chain(&["mcast"]) {
        opts.optopt("", value, "", "");
    }
    opts.optmulti("", "allow", "", "");
    let Some(m) = parse("doctor", opts, args)? else {
        return Ok(true);
    };
    check_values(&m)?;
    no_operands("doctor", &m)?;
    let mut mcast = vec![hints::EXAMPLES_GROUP.to_string()];
    if let Some(g) = m.opt_str("mcast") {
        mcast_group(&g)?;
        if !mcast.contains(&g) {
            mcast.push(g);
        }
    }
    let gid_idx = whole_opt::<u32>(&m, "gid-idx")?;
    let secret_file = m.opt_str("secret-file").map(std::path::PathBuf::from);
    let check = host::doctor::doctor(
        &host::doctor::DoctorRequest {
            dev: m.opt_str("dev"),
            ip: m.opt_str("ip"),
            peer: m.opt_str("peer"),
            gid_idx,
            mcast,
            port: num_opt(&m, "port", model::CONTROL_PORT)?,
            wait_secs: num_opt(&m, "wait", guest::agent::PEER_WAIT_SECS)?,
            bin_dir: m.opt_str("bin-dir").map(std::path::PathBuf::from),
            secret_file,
            allow: allow_list(&m)?,
        },
        places,
    )?;
    Ok(crate::present::doctor::print(&check))
}
