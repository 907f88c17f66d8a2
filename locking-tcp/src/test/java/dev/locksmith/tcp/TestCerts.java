package dev.locksmith.tcp;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for localhost and 127.0.0.1, made with the JDK's keytool and written as
 * PEM: {@code cert.pem} and an unencrypted PKCS#8 {@code key.pem}.
 */
record TestCerts(Path cert, Path key) {

  static TestCerts create(Path dir) throws Exception {
    Path keystore = dir.resolve("server.p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process process =
        new ProcessBuilder(
                keytool,
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "2",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                "changeit",
                "-keypass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + output);
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      store.load(in, "changeit".toCharArray());
    }
    PrivateKey key = (PrivateKey) store.getKey("server", "changeit".toCharArray());
    Certificate cert = store.getCertificate("server");
    Path certPem = dir.resolve("cert.pem");
    Path keyPem = dir.resolve("key.pem");
    Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
    Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
    return new TestCerts(certPem, keyPem);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
