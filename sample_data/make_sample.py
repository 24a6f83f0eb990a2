"""Writes sample_data/rag_audit_sample.csv: a small hand-written RAG log for demos and tests.

Texts are written for this project (not taken from any benchmark). `gold_hallucinated` and
`gold_note` say what a careful human reviewer would mark.
"""
import csv
from pathlib import Path

HARBOR = ("The Lindqvist Harbor Bridge opened to traffic on 14 May 1998. It is 1,240 metres long and carries "
          "four lanes of road traffic and a separate cycle path. Construction took four years and cost 310 million "
          "euros, which was 12 percent over the original budget. The bridge was designed by the engineering firm "
          "Aalto & Berg. Tolls are not charged for cyclists or pedestrians. A major renovation of the deck is "
          "planned for 2027.")
INSULIN = ("Insulin glargine is a long-acting insulin used to control blood sugar in adults and children with "
           "diabetes. It is usually injected once a day at the same time each day. The medicine should not be "
           "mixed with other insulins in the same syringe. Common side effects include low blood sugar, weight gain "
           "and reactions at the injection site. Unopened pens should be stored in a refrigerator at 2 to 8 degrees "
           "Celsius; a pen in use can be kept at room temperature for up to 28 days.")
EARNINGS = ("Norvik Foods reported revenue of 4.2 billion dollars for the 2023 fiscal year, up 6 percent from the "
            "previous year. Operating profit fell to 310 million dollars because of higher packaging and energy "
            "costs. The company opened two new plants, in Poland and in Mexico, and cut its workforce by 3 percent. "
            "Chief executive Dana Whitfield said the company expects revenue growth of 4 to 5 percent in 2024. "
            "The board proposed a dividend of 1.10 dollars per share.")
COURT = ("On 3 March the regional court dismissed the lawsuit brought by the tenants' association against "
         "Hallmark Properties. The judge ruled that the rent increases of 2022 complied with the local housing "
         "code. The association had argued that the landlord failed to carry out required repairs. The court "
         "did not rule on the repair complaints, which will be heard in a separate case in the autumn. The "
         "association said it would consider an appeal.")
VOLCANO = ("Mount Serrat last erupted in 1911, according to the national geological survey. The volcano rises "
           "2,870 metres above sea level and is classified as dormant, not extinct. Scientists installed six "
           "seismic monitoring stations on its slopes in 2019. Small earthquakes are recorded several times a "
           "month, but there has been no sign of rising magma. The summit trail is closed from November to March "
           "because of snow.")

Q = "question"
ROWS = [
    ("harbor-1", "gpt-4o", "qa", "When did the Lindqvist Harbor Bridge open and how long is it?", HARBOR,
     "The Lindqvist Harbor Bridge opened on 14 May 1998 and is 1,240 metres long.", False, "faithful"),
    ("harbor-2", "llama-3-8b", "qa", "How much did the bridge cost?", HARBOR,
     "The bridge cost 410 million euros, about 12 percent over budget.", True, "contradicted number (410 vs 310)"),
    ("harbor-3", "mistral-7b", "qa", "Who designed the bridge?", HARBOR,
     "It was designed by Aalto & Berg together with the architect Sofia Lindqvist.", True, "invented person"),
    ("harbor-4", "gpt-4o", "summary", "", HARBOR,
     "The 1,240-metre bridge opened in 1998 after four years of construction. Cyclists and pedestrians pay "
     "tolls. A deck renovation is planned for 2027.", True, "negation flip (tolls)"),
    ("insulin-1", "gpt-4o", "qa", "How often is insulin glargine taken?", INSULIN,
     "Insulin glargine is usually injected once a day, at the same time each day.", False, "faithful"),
    ("insulin-2", "llama-3-8b", "qa", "Can insulin glargine be mixed with other insulins?", INSULIN,
     "Yes, it can be mixed with other insulins in the same syringe.", True, "negation flip"),
    ("insulin-3", "mistral-7b", "qa", "How should the pens be stored?", INSULIN,
     "Unopened pens belong in a refrigerator at 2 to 8 degrees Celsius; a pen in use can stay at room "
     "temperature for up to 28 days.", False, "faithful"),
    ("insulin-4", "llama-3-8b", "summary", "", INSULIN,
     "Insulin glargine is a long-acting insulin injected once a day. Side effects include low blood sugar and "
     "hair loss. A pen in use keeps for 42 days at room temperature.", True, "invented side effect; wrong number"),
    ("earnings-1", "gpt-4o", "summary", "", EARNINGS,
     "Norvik Foods grew revenue 6 percent to 4.2 billion dollars in fiscal 2023, while operating profit fell "
     "to 310 million dollars on higher packaging and energy costs.", False, "faithful"),
    ("earnings-2", "mistral-7b", "summary", "", EARNINGS,
     "Norvik Foods reported record profit of 310 million dollars and opened new plants in Poland and Mexico.",
     True, "'record profit' contradicts 'fell'"),
    ("earnings-3", "llama-3-8b", "qa", "What did the CEO say about 2024?", EARNINGS,
     "Chief executive Dana Whitfield expects revenue growth of 4 to 5 percent in 2024 and plans to acquire "
     "a competitor in Brazil.", True, "invented acquisition"),
    ("earnings-4", "gpt-4o", "qa", "What dividend did the board propose?", EARNINGS,
     "The board proposed a dividend of 1.10 dollars per share.", False, "faithful"),
    ("court-1", "gpt-4o", "summary", "", COURT,
     "The regional court dismissed the tenants' association lawsuit against Hallmark Properties, ruling that "
     "the 2022 rent increases complied with the housing code. The repair complaints will be heard separately "
     "in the autumn.", False, "faithful"),
    ("court-2", "llama-3-8b", "summary", "", COURT,
     "The court ruled in favour of the tenants and ordered Hallmark Properties to carry out the repairs.", True,
     "contradicts the dismissal; repairs not ruled on"),
    ("court-3", "mistral-7b", "qa", "When was the lawsuit dismissed?", COURT,
     "The lawsuit was dismissed on 3 March.", False, "faithful"),
    ("court-4", "gpt-4o", "qa", "Will the association appeal?", COURT,
     "The association has already filed an appeal with the supreme court.", True, "overstates 'would consider'"),
    ("volcano-1", "mistral-7b", "qa", "When did Mount Serrat last erupt?", VOLCANO,
     "Mount Serrat last erupted in 1911.", False, "faithful"),
    ("volcano-2", "llama-3-8b", "qa", "How high is Mount Serrat?", VOLCANO,
     "Mount Serrat rises 3,870 metres above sea level.", True, "contradicted number"),
    ("volcano-3", "gpt-4o", "summary", "", VOLCANO,
     "Mount Serrat is a dormant volcano, 2,870 metres high, that last erupted in 1911. Six seismic stations "
     "have monitored it since 2019, and there is no sign of rising magma.", False, "faithful"),
    ("volcano-4", "mistral-7b", "summary", "", VOLCANO,
     "Mount Serrat is an extinct volcano. Its summit trail is open all year and is popular with tourists.",
     True, "'extinct' contradicts; trail closed in winter"),
]


def main() -> None:
    path = Path(__file__).with_name("rag_audit_sample.csv")
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "model", "task", "question", "context", "answer", "gold_hallucinated", "gold_note"])
        for row in ROWS:
            w.writerow([*row[:6], "true" if row[6] else "false", row[7]])
    print(f"wrote {len(ROWS)} rows to {path}")


if __name__ == "__main__":
    main()
