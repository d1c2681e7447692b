package io.shardgate.router.tls;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A private key with the certificate chain that vouches for it, leaf first: what the frontend presents
 * in the TLS handshake.
 *
 * @param chain leaf certificate, then any intermediates; never empty
 * @param key private key whose public half is in the leaf certificate
 */
public record CertifiedKey(List<X509Certificate> chain, PrivateKey key) {

    public CertifiedKey {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a certified key needs at least the leaf certificate");
        }
    }

    /** The certificate holding the public half of {@link #key()}. */
    public X509Certificate leaf() {
        return chain.get(0);
    }

    /**
     * Reads a PEM certificate chain and its PEM private key, and checks that they belong together, so a
     * mismatched pair fails at startup with both file names rather than in every client's handshake.
     */
    public static CertifiedKey read(Path certFile, Path keyFile) {
        List<X509Certificate> chain = PemFiles.readCertificates(certFile, "TLS certificate");
        PrivateKey key = PemFiles.readPrivateKey(keyFile, "TLS private key");
        PublicKey certified = chain.get(0).getPublicKey();
        if (!matches(certified, key)) {
            throw new KeyMaterialException(PemFiles.describe("TLS certificate", certFile)
                    + " does not match " + PemFiles.describe("TLS private key", keyFile)
                    + ": the certificate's " + certified.getAlgorithm() + " public key is not the public half"
                    + " of this " + key.getAlgorithm() + " private key (the first certificate in the file"
                    + " must be the one issued for this key)");
        }
        return new CertifiedKey(chain, key);
    }

    /**
     * Tells whether {@code publicKey} is the public half of {@code privateKey} by signing a challenge
     * and verifying it, which works for RSA, EC and EdDSA alike without comparing key internals.
     */
    static boolean matches(PublicKey publicKey, PrivateKey privateKey) {
        if (!publicKey.getAlgorithm().equals(privateKey.getAlgorithm())) {
            return false;
        }
        String algorithm = switch (privateKey.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> privateKey.getAlgorithm();
            default ->
                throw new KeyMaterialException("unsupported private key algorithm " + privateKey.getAlgorithm()
                        + "; use an RSA, EC or EdDSA key");
        };
        byte[] challenge = "shardgate key pair check".getBytes(US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(privateKey);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
