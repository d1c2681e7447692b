package io.shardgate.router.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Self-signed X.509 server certificates for "localhost" and 127.0.0.1, what MySQL itself generates
 * at first start (auto_generate_certs) so that clients can use TLS without any setup.
 *
 * <p>Built with BouncyCastle rather than Netty's {@code SelfSignedCertificate}, which is deprecated,
 * falls back to {@code sun.security.x509} internals when BouncyCastle is absent, and writes its
 * files to the temporary directory instead of where we keep them.
 */
final class SelfSignedCertificates {
    static final String COMMON_NAME = "Shardgate auto-generated";
    static final Duration VALIDITY = Duration.ofDays(3652);

    // Tolerates clients whose clocks run behind ours, as "notBefore = now" would reject them.
    private static final Duration BACKDATE = Duration.ofDays(1);

    private SelfSignedCertificates() {}

    /** Generates an RSA 2048 key and a certificate valid for ten years from {@code now}. */
    static CertifiedKey generate(Instant now) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, new SecureRandom());
            return create(COMMON_NAME, generator.generateKeyPair(), now, VALIDITY);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot generate RSA keys", e);
        }
    }

    /**
     * Certifies {@code keyPair} under {@code commonName}, signed by itself (SHA-256 with RSA or ECDSA),
     * with subject alternative names DNS localhost and IP 127.0.0.1.
     */
    static CertifiedKey create(String commonName, KeyPair keyPair, Instant now, Duration validity) {
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.CN, commonName)
                .build();
        // RFC 5280: a positive serial of at most 20 octets; 64 random bits keep re-generated ones distinct.
        BigInteger serial = new BigInteger(64, new SecureRandom()).setBit(63);
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                subject,
                serial,
                Date.from(now.minus(BACKDATE)),
                Date.from(now.plus(validity)),
                subject,
                keyPair.getPublic());
        // Hostname verification reads only the SAN, never the CN (RFC 6125). No keyUsage or
        // basicConstraints: OpenSSL does not treat a self-signed certificate whose keyUsage lacks
        // keyCertSign as its own issuer, so clients could not trust it as a CA (--ssl-ca).
        GeneralNames names = new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")
        });
        try {
            builder.addExtension(Extension.subjectAlternativeName, false, names);
            builder.addExtension(
                    Extension.subjectKeyIdentifier,
                    false,
                    new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keyPair.getPublic()));
            ContentSigner signer = new JcaContentSignerBuilder(signatureAlgorithm(keyPair)).build(keyPair.getPrivate());
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(builder.build(signer));
            return new CertifiedKey(List.of(certificate), keyPair.getPrivate());
        } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot create a self-signed certificate for " + commonName, e);
        }
    }

    private static String signatureAlgorithm(KeyPair keyPair) {
        return switch (keyPair.getPrivate().getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default ->
                throw new IllegalArgumentException(
                        "cannot self-sign with a " + keyPair.getPrivate().getAlgorithm() + " key");
        };
    }
}
