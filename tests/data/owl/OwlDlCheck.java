// OWL 2 DL profile check with the OWL API (run by tests/test_ontology.py when MLKG_OWLAPI_JARS names a folder of its jars):
//   java -cp "$MLKG_OWLAPI_JARS/*" OwlDlCheck.java ontology/mlkg.ttl   -> exit 0 and "IN OWL 2 DL PROFILE", else the violations.
import java.io.File;
import org.semanticweb.owlapi.apibinding.OWLManager;
import org.semanticweb.owlapi.model.*;
import org.semanticweb.owlapi.profiles.*;

public class OwlDlCheck {
    public static void main(String[] args) throws Exception {
        OWLOntologyManager m = OWLManager.createOWLOntologyManager();
        OWLOntology o = m.loadOntologyFromOntologyDocument(new File(args[0]));
        OWLProfileReport r = new OWL2DLProfile().checkOntology(o);
        System.out.println("axioms: " + o.getAxiomCount());
        for (OWLProfileViolation v : r.getViolations()) System.out.println("VIOLATION: " + v);
        System.out.println(r.isInProfile() ? "IN OWL 2 DL PROFILE" : "NOT IN OWL 2 DL PROFILE");
        System.exit(r.isInProfile() ? 0 : 1);
    }
}
