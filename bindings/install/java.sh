# bindings/install/install.sh's steps for Java, sourced by it in the install's
# folder ($DIR): what it writes before the README's block runs, and $check,
# the commands run after the block in the same shell.
	# A Maven project: its pom depends on the installed jar (JNA with it,
	# from Debian's repository) and runs Prog with exec:java; Prog checks
	# that both jars are the project's repository's (m2).
	mkdir -p src/main/java
	cat > pom.xml <<'EOF'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>app</artifactId>
  <version>1</version>
  <properties><maven.compiler.release>17</maven.compiler.release></properties>
  <dependencies>
    <dependency>
      <groupId>org.rdmaverbs</groupId>
      <artifactId>rdmaverbs</artifactId>
      <version>1.4.0</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.codehaus.mojo</groupId>
        <artifactId>exec-maven-plugin</artifactId>
        <version>3.1.0</version>
        <configuration><mainClass>Prog</mainClass></configuration>
      </plugin>
    </plugins>
  </build>
</project>
EOF
	cat > src/main/java/Prog.java <<'EOF'
import org.rdmaverbs.RdmaVerbs;

public class Prog {
    static String jar(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation().getPath();
    }

    public static void main(String[] args) throws java.io.IOException {
        String m2 = System.getProperty("user.dir") + "/m2/";
        String ours = jar(RdmaVerbs.class), jna = jar(com.sun.jna.Native.class);
        System.out.println("java: " + ours + ", " + jna);
        if (!ours.equals(m2 + "org/rdmaverbs/rdmaverbs/1.4.0/rdmaverbs-1.4.0.jar")
            || !jna.startsWith(m2 + "net/java/dev/jna/jna/")) {
            System.exit(1);
        }
        System.out.println("java: the jar and JNA from the project's repository, m2");
        if (RdmaVerbs.rdma_seterrno(0) != 0
            || !RdmaVerbs.ibv_wc_status_str(RdmaVerbs.IBV_WC_LOC_PROT_ERR).equals("local protection error")) {
            System.exit(1);
        }
        System.out.println("java: Prog ran with the installed jar");
    }
}
EOF
	# Prog's System.exit(1) is exec:java's, so the block's, failure; the
	# last line is this one (Maven ends its output with a colour reset).
	check='printf '"'"'\njava: installed: ok\n'"'"''
