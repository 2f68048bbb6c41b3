/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Where mplanectl's own data files are: beside an installed binary, in
 * PREFIX/share/mplane (PREFIX/sbin/mplanectl looks in ../share/mplane),
 * or, for a binary run from the build tree, where the build says.
 */
#ifndef MP_DATADIR_H
#define MP_DATADIR_H

/*
 * The path of @rel ("expect.conf", "torch/launch.sh") under the
 * installed data directory when that file exists, else @built_in.  A
 * path found is allocated once per call and kept for the process's life.
 */
const char *mp_data_file(const char *rel, const char *built_in);

#endif /* MP_DATADIR_H */
