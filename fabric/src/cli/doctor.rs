//! `doctor`: this host's RDMA setup, and with `--peer` the path to a peer.

use super::define::DoctorArgs;
use crate::host;
use crate::host::places::Places;

/// `doctor [OPTIONS]`, its binaries where `places` says.
pub(super) fn doctor_cmd(a: DoctorArgs, places: &dyn Places) -> Result<bool, String> {
    let mut mcast = vec![hints::EXAMPLES_GROUP.to_string()];
    if let Some(g) = a.mcast.filter(|g| !mcast.contains(g)) {
        mcast.push(g);
    }
    let check = host::doctor::doctor(
        &host::doctor::DoctorRequest {
            dev: a.dev,
            ip: a.ip,
            peer: a.peer,
            gid_idx: a.examples.gid_idx,
            mcast,
            port: a.port,
            wait_secs: a.session.wait,
            bin_dir: a.examples.bin_dir,
            secret_file: a.session.secret_file,
            allow: a.session.allow,
        },
        places,
    )?;
    Ok(crate::present::doctor::print(&check))
}
