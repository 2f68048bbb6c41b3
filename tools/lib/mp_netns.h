/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Named network namespaces, made and removed the way ip-netns(8) does it
 * (a bind mount of the namespace under /run/netns, which is a shared
 * mount), so that 'ip netns exec', 'ip -n' and mp_netns_enter() find
 * them; but in-process, without a fork per namespace.
 */
#ifndef MP_NETNS_H
#define MP_NETNS_H

#define MP_NETNS_RUN_DIR	"/run/netns"

/*
 * Create the namespace NAME and move the calling thread into it: sockets
 * it opens and /proc/sys/net files it writes are then NAME's.  The thread
 * goes back with mp_netns_return().  0, or a negative errno (-EEXIST when
 * NAME exists); on failure the thread may be in a new, unnamed namespace
 * too, so the caller returns in either case.
 */
int mp_netns_create(const char *name);

/* setns() to @fd, an open namespace file such as /proc/self/ns/net. */
int mp_netns_return(int fd);

/* Open NAME's namespace file (O_RDONLY | O_CLOEXEC): an fd or -errno. */
int mp_netns_open(const char *name);

/*
 * Remove NAME as 'ip netns del' does: detach the mount and unlink it.
 * The kernel frees the namespace when nothing else holds it.  0, or a
 * negative errno (-ENOENT when there is no such name).
 */
int mp_netns_delete(const char *name);

/*
 * Each namespace under /run/netns once, whatever its names, but the
 * calling thread's own: @cb(name, inode, data) for it, in directory
 * order, without entering it.  A non-zero @cb stops the walk and is
 * returned; else 0, or a negative errno when the thread's own namespace
 * cannot be told (/proc/thread-self/ns/net).
 */
typedef int (*mp_netns_cb)(const char *name, unsigned long inode, void *data);
int mp_netns_each(mp_netns_cb cb, void *data);

/* Write @val to the sysctl file @path (under /proc/sys) of the calling
 * thread's namespace: 0 or -errno. */
int mp_sysctl_write(const char *path, const char *val);

#endif /* MP_NETNS_H */
