// SPDX-License-Identifier: MIT
/*
 * DOC: booter signature check
 *
 * The model's SEC2 booter verifies .fwimage against the public key built
 * into the model (firmware/nvl_booter_pubkey.h, generated at build time).
 * OpenSSL does the arithmetic; the key is parsed once. The check can be
 * fed the image in pieces (nvl_model_booter_check_*()), so the model's
 * booter hashes each piece as it copies it into WPR2.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "base/alloc.h"
#include "base/log.h"
#include "firmware/nvl_booter_pubkey.h"
#include "model/gsp/booter_sig.h"

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static EVP_PKEY *fused_key;

static void key_init(void)
{
	const unsigned char *p = nvl_booter_pubkey_der;

	fused_key = d2i_PUBKEY(NULL, &p, (long)sizeof(nvl_booter_pubkey_der));
}

struct nvl_model_booter_check {
	EVP_MD_CTX *md;
	bool failed; /* an update failed: the check cannot pass */
};

struct nvl_model_booter_check *nvl_model_booter_check_begin(void)
{
	struct nvl_model_booter_check *c;
	EVP_PKEY_CTX *pctx = NULL;

	pthread_once(&key_once, key_init);
	if (!fused_key)
		return NULL;
	c = nvl_zalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->md = EVP_MD_CTX_new();
	if (!c->md ||
	    EVP_DigestVerifyInit(c->md, &pctx, EVP_sha256(), NULL, fused_key) !=
		    1 ||
	    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
	    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1)
		c->failed = true;
	return c;
}

void nvl_model_booter_check_update(struct nvl_model_booter_check *c,
				   const void *data, size_t len)
{
	if (c && !c->failed && len &&
	    EVP_DigestVerifyUpdate(c->md, data, len) != 1)
		c->failed = true;
}

int nvl_model_booter_check_end(struct nvl_model_booter_check *c, size_t size,
			       const void *sig, size_t sig_size)
{
	bool ok;

	if (!c) {
		if (!fused_key)
			return nvl_error(-EKEYREJECTED,
					 "booter: fused key unusable");
		return nvl_error(-EKEYREJECTED, "booter: out of memory");
	}
	ok = !c->failed && sig && sig_size == NVL_MODEL_BOOTER_SIG_SIZE &&
	     EVP_DigestVerifyFinal(c->md, sig, sig_size) == 1;
	EVP_MD_CTX_free(c->md);
	nvl_free(c);
	if (!sig)
		return nvl_error(-EINVAL, "booter: no signature");
	if (sig_size != NVL_MODEL_BOOTER_SIG_SIZE)
		return nvl_error(-EKEYREJECTED,
				 "booter: signature is %zu bytes, want %u",
				 sig_size, NVL_MODEL_BOOTER_SIG_SIZE);
	if (!ok)
		return nvl_error(-EKEYREJECTED,
				 "booter: GSP image signature does not verify "
				 "(%zu-byte image)",
				 size);
	return 0;
}

int nvl_model_booter_verify(const void *fwimage, size_t size, const void *sig,
			    size_t sig_size)
{
	struct nvl_model_booter_check *c;

	if (!fwimage || !sig)
		return nvl_error(-EINVAL, "booter: no image or no signature");
	c = nvl_model_booter_check_begin();
	/* a signature of the wrong size fails without hashing the image */
	if (sig_size == NVL_MODEL_BOOTER_SIG_SIZE)
		nvl_model_booter_check_update(c, fwimage, size);
	return nvl_model_booter_check_end(c, size, sig, sig_size);
}
