package io.shardgate.router.tls;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM files on disk (RFC 7468): certificates, private and public keys, read in the formats OpenSSL
 * and MySQL write, and written atomically with owner-only permissions for private keys.
 *
 * <p>Parsing uses BouncyCastle's {@link PEMParser} because the JDK reads neither PEM nor PKCS#1/SEC1
 * keys. Keys and certificates are built by the JDK's default providers; the BouncyCastle provider is
 * never registered, so no process-wide security state changes.
 */
final class PemFiles {
    private static final Base64.Encoder BASE64_64_COLUMNS = Base64.getMimeEncoder(64, new byte[] {'\n'});
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> WORLD_READABLE = PosixFilePermissions.fromString("rw-r--r--");

    private PemFiles() {}

    /** Reads every CERTIFICATE block of {@code file}, in file order (leaf first in a chain). */
    static List<X509Certificate> readCertificates(Path file, String role) {
        List<Object> objects = readObjects(file, role);
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        List<X509Certificate> chain = new ArrayList<>();
        for (Object object : objects) {
            if (object instanceof X509CertificateHolder holder) {
                try {
                    chain.add(converter.getCertificate(holder));
                } catch (CertificateException e) {
                    throw new KeyMaterialException(
                            describe(role, file) + ": certificate cannot be decoded: " + e.getMessage(), e);
                }
            }
        }
        if (chain.isEmpty()) {
            throw new KeyMaterialException(
                    describe(role, file) + ": no '-----BEGIN CERTIFICATE-----' block" + found(objects));
        }
        return chain;
    }

    /** Reads the first private key of {@code file}: PKCS#8, PKCS#1 (RSA) or SEC1 (EC), unencrypted. */
    static PrivateKey readPrivateKey(Path file, String role) {
        List<Object> objects = readObjects(file, role);
        for (Object object : objects) {
            PrivateKeyInfo info = null;
            if (object instanceof PrivateKeyInfo pkcs8) {
                info = pkcs8;
            } else if (object instanceof PEMKeyPair pkcs1OrSec1) {
                info = pkcs1OrSec1.getPrivateKeyInfo();
            } else if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
                throw new KeyMaterialException(describe(role, file)
                        + ": the key is encrypted with a passphrase; Shardgate reads unencrypted keys only"
                        + " (decrypt it with: openssl pkey -in KEY -out KEY.plain)");
            }
            if (info != null) {
                try {
                    return new JcaPEMKeyConverter().getPrivateKey(info);
                } catch (PEMException e) {
                    throw new KeyMaterialException(
                            describe(role, file) + ": private key cannot be decoded: " + e.getMessage(), e);
                }
            }
        }
        throw new KeyMaterialException(describe(role, file)
                + ": no '-----BEGIN PRIVATE KEY-----', 'RSA PRIVATE KEY' or 'EC PRIVATE KEY' block" + found(objects));
    }

    /** Reads the first public key of {@code file}: X.509 SubjectPublicKeyInfo or PKCS#1 (RSA). */
    static PublicKey readPublicKey(Path file, String role) {
        List<Object> objects = readObjects(file, role);
        for (Object object : objects) {
            if (object instanceof SubjectPublicKeyInfo info) {
                try {
                    return new JcaPEMKeyConverter().getPublicKey(info);
                } catch (PEMException e) {
                    throw new KeyMaterialException(
                            describe(role, file) + ": public key cannot be decoded: " + e.getMessage(), e);
                }
            }
        }
        throw new KeyMaterialException(
                describe(role, file) + ": no '-----BEGIN PUBLIC KEY-----' block" + found(objects));
    }

    /**
     * Encodes DER as one PEM block with 64-column lines and '\n' line ends, as OpenSSL writes it (BC's
     * {@code JcaPEMWriter} would use the platform line separator, and clients receive this text).
     */
    static String encode(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + BASE64_64_COLUMNS.encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /**
     * Tells whether a generated pair exists: true for both files, false for neither; one without the
     * other is an error rather than a silent regeneration that would replace a key someone relies on.
     */
    static boolean pairExists(Path first, Path second, String what) {
        boolean firstExists = Files.exists(first);
        boolean secondExists = Files.exists(second);
        if (firstExists != secondExists) {
            Path present = firstExists ? first : second;
            Path missing = firstExists ? second : first;
            throw new KeyMaterialException(what + ": found " + present + " but not " + missing
                    + "; restore the missing file, or delete " + present + " to generate a new pair");
        }
        return firstExists;
    }

    /**
     * Writes {@code pem} to {@code file} through a temporary file and a rename, so a crash never leaves
     * a truncated key; a private key is created 0600 where the file system has POSIX permissions.
     */
    static void write(Path file, String pem, boolean privateKey, String role) {
        Path dir = file.toAbsolutePath().getParent();
        Path temp = null;
        try {
            Files.createDirectories(dir);
            boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
            // Created owner-only from the start: a key must never be readable, even between create and chmod.
            temp = posix
                    ? Files.createTempFile(
                            dir,
                            file.getFileName().toString(),
                            ".tmp",
                            PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                    : Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            Files.writeString(temp, pem, US_ASCII);
            if (posix && !privateKey) {
                Files.setPosixFilePermissions(temp, WORLD_READABLE);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new KeyMaterialException(describe(role, file) + ": cannot write: " + why(e), e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // the temporary file is owner-only like the key it may hold; leaving it is the lesser harm
                }
            }
        }
    }

    static String describe(String role, Path file) {
        return role + " " + file.toAbsolutePath();
    }

    private static List<Object> readObjects(Path file, String role) {
        if (Files.isDirectory(file)) {
            throw new KeyMaterialException(describe(role, file) + ": is a directory, expected a PEM file");
        }
        String text;
        try {
            // ISO-8859-1 maps every byte, so a DER (binary) file reaches the "no PEM block" message
            // instead of failing with a charset error.
            text = Files.readString(file, ISO_8859_1);
        } catch (IOException e) {
            throw new KeyMaterialException(describe(role, file) + ": " + why(e), e);
        }
        try (PEMParser parser = new PEMParser(new StringReader(text))) {
            List<Object> objects = new ArrayList<>();
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                objects.add(object);
            }
            return objects;
        } catch (IOException | RuntimeException e) {
            // BouncyCastle reports bad Base64 and broken ASN.1 with IOExceptions and unchecked exceptions
            throw new KeyMaterialException(describe(role, file) + ": malformed PEM (" + e.getMessage() + ")", e);
        }
    }

    private static String why(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.toString();
    }

    private static String found(List<Object> objects) {
        if (objects.isEmpty()) {
            return " (the file holds no PEM block at all; is it DER? convert it with openssl ... -outform PEM)";
        }
        Set<String> kinds = new LinkedHashSet<>();
        for (Object object : objects) {
            kinds.add(kind(object));
        }
        return " (found " + String.join(", ", kinds) + ")";
    }

    private static String kind(Object object) {
        if (object instanceof X509CertificateHolder) {
            return "a CERTIFICATE";
        }
        if (object instanceof PrivateKeyInfo || object instanceof PEMKeyPair) {
            return "a PRIVATE KEY";
        }
        if (object instanceof SubjectPublicKeyInfo) {
            return "a PUBLIC KEY";
        }
        return "a " + object.getClass().getSimpleName();
    }
}
