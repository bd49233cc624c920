// The version line of the okhttp profile: OkHttp's own user agent, e.g. okhttp/3.13.1.
// Run in source-file mode, so that it needs no compiled classes:
//   java -cp "$CP" okhttp/Version.java

public final class Version {
    public static void main(String[] args) {
        System.out.println(okhttp3.internal.Version.userAgent());
    }
}
