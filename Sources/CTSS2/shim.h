#ifndef CLAVIS_TSS2_H
#define CLAVIS_TSS2_H

// tpm2-tss headers (Debian: libtss2-dev; the libraries are loaded at run time, see CTPM): the Enhanced System API, the TCTI loader that turns a TCTI string
// ("device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321") into a connection, the marshalling helpers and the
// response-code decoder. Only CTPM's C files use these headers; Swift sees CTPM's plain C functions.
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#endif
