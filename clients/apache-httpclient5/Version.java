// The version line of the apache-httpclient5 profile: HttpClient's own software info, e.g. Apache-HttpClient/5.2.1.
// Run in source-file mode, so that it needs no compiled classes:
//   java -cp "$CP" apache-httpclient5/Version.java

import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.util.VersionInfo;

public final class Version {
    public static void main(String[] args) {
        System.out.println(VersionInfo.getSoftwareInfo("Apache-HttpClient", "org.apache.hc.client5", HttpClientBuilder.class));
    }
}
