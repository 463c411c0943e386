/*
 * The v0.4 node list ('nodes:' with !Container, !Component, !Parallel).
 */
#include "specs/specs_int.h"

int spec_arch_nodes_load(struct ld *ld, const struct ysrc_node *arch, const struct kpath *p)
{
	return ld_error(ld, arch, p, "the v0.4 node list is not supported yet");
}
