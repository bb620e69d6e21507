#ifndef PE_VERSION_H
#define PE_VERSION_H
#define POSENC_VERSION "0.1.0"
#endif
