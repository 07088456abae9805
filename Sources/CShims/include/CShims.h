#ifndef CSHIMS_H
#define CSHIMS_H
int cshims_placeholder(void);
#endif
