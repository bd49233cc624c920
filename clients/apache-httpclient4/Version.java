// The version line of the apache-httpclient4 profile: HttpClient's own user agent, e.g. Apache-HttpClient/4.5.14.
// Run in source-file mode, so that it needs no compiled classes:
//   java -cp "$CP" apache-httpclient4/Version.java

import org.apache.http.impl.client.HttpClientBuilder;
import org.apache.http.util.VersionInfo;

public final class Version {
    public static void main(String[] args) {
        System.out.println(VersionInfo.getUserAgent("Apache-HttpClient", "org.apache.http.client", HttpClientBuilder.class));
    }
}
