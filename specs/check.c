/*
 * Cross-section checks run once every section has loaded.
 */
#include "specs/specs_int.h"

int spec_check_all(struct ld *ld)
{
	(void)ld;
	return 0;
}
