#include "CShims.h"
int cshims_placeholder(void) { return 0; }
