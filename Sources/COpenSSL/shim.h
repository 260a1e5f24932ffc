#ifndef CLAVIS_COPENSSL_SHIM_H
#define CLAVIS_COPENSSL_SHIM_H

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#endif
