// Judge for grammarvalidity: parses each Java file named on the command
// line with javac's parser only (JavacTask.parse), printing "ok" or the
// first error, one line per file.
import javax.tools.*;
import com.sun.source.util.JavacTask;
import java.util.*;
import java.io.*;

public class Judge {
    public static void main(String[] args) throws Exception {
        JavaCompiler c = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = c.getStandardFileManager(null, null, null);
        for (String a : args) {
            DiagnosticCollector<JavaFileObject> d = new DiagnosticCollector<>();
            JavacTask t = (JavacTask) c.getTask(new StringWriter(), fm, d, List.of("-proc:none"), null, fm.getJavaFileObjects(a));
            t.parse();
            String msg = "ok";
            for (Diagnostic<?> x : d.getDiagnostics()) {
                if (x.getKind() == Diagnostic.Kind.ERROR) {
                    msg = x.getMessage(Locale.ROOT).replace("\n", " ");
                    break;
                }
            }
            System.out.println(msg);
        }
    }
}
