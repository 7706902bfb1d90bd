import { describe, expect, it } from "vitest";
import { languageDetect } from "./language-detect";
import { abortedSignal, isNonDecreasing, recordingContext } from "./testing/recording-context";

interface Detection {
  iso6393: string;
  iso6391: string | null;
  name: string;
  confidence: number;
  alternatives: { iso6393: string; iso6391: string; name: string; confidence: number }[];
}

async function detect(text: string) {
  const ctx = recordingContext();
  const result = await languageDetect.run({ text }, ctx);
  return { ...result, output: result.output as unknown as Detection, ctx };
}

// One news paragraph, written in each language.
const paragraphs: [iso6393: string, iso6391: string, name: string, text: string][] = [
  [
    "eng",
    "en",
    "English",
    "The city council met on Tuesday evening to discuss the new budget. Several residents asked why the library would close earlier on weekends, and the mayor promised to look for another solution before the end of the month.",
  ],
  [
    "deu",
    "de",
    "German",
    "Der Stadtrat hat sich am Dienstagabend getroffen, um über den neuen Haushalt zu sprechen. Mehrere Bürger wollten wissen, warum die Bibliothek am Wochenende früher schließen soll, und der Bürgermeister versprach, bis Ende des Monats eine andere Lösung zu finden.",
  ],
  [
    "fra",
    "fr",
    "French",
    "Le conseil municipal s'est réuni mardi soir pour discuter du nouveau budget. Plusieurs habitants ont demandé pourquoi la bibliothèque fermerait plus tôt le week-end, et le maire a promis de chercher une autre solution avant la fin du mois.",
  ],
  [
    "spa",
    "es",
    "Spanish",
    "El ayuntamiento se reunió el martes por la tarde para hablar del nuevo presupuesto. Varios vecinos preguntaron por qué la biblioteca cerraría antes los fines de semana, y el alcalde prometió buscar otra solución antes de que termine el mes.",
  ],
  [
    "ita",
    "it",
    "Italian",
    "Il consiglio comunale si è riunito martedì sera per discutere il nuovo bilancio. Diversi cittadini hanno chiesto perché la biblioteca chiuderebbe prima nei fine settimana, e il sindaco ha promesso di cercare un'altra soluzione entro la fine del mese.",
  ],
  [
    "por",
    "pt",
    "Portuguese",
    "A câmara municipal reuniu-se na terça-feira à noite para discutir o novo orçamento. Vários moradores perguntaram por que razão a biblioteca iria fechar mais cedo aos fins de semana, e o presidente prometeu procurar outra solução até ao fim do mês.",
  ],
  [
    "nld",
    "nl",
    "Dutch",
    "De gemeenteraad kwam dinsdagavond bijeen om de nieuwe begroting te bespreken. Verschillende inwoners vroegen waarom de bibliotheek in het weekend eerder zou sluiten, en de burgemeester beloofde voor het einde van de maand een andere oplossing te zoeken.",
  ],
  [
    "pol",
    "pl",
    "Polish",
    "Rada miejska zebrała się we wtorek wieczorem, aby omówić nowy budżet. Kilku mieszkańców pytało, dlaczego biblioteka ma być zamykana wcześniej w weekendy, a burmistrz obiecał poszukać innego rozwiązania przed końcem miesiąca.",
  ],
  [
    "swe",
    "sv",
    "Swedish",
    "Kommunfullmäktige samlades på tisdagskvällen för att diskutera den nya budgeten. Flera invånare frågade varför biblioteket skulle stänga tidigare på helgerna, och borgmästaren lovade att leta efter en annan lösning innan månaden är slut.",
  ],
  [
    "tur",
    "tr",
    "Turkish",
    "Belediye meclisi salı akşamı yeni bütçeyi görüşmek için toplandı. Birçok vatandaş kütüphanenin hafta sonları neden daha erken kapanacağını sordu ve belediye başkanı ay sonundan önce başka bir çözüm bulmaya çalışacağına söz verdi.",
  ],
  [
    "rus",
    "ru",
    "Russian",
    "Городской совет собрался во вторник вечером, чтобы обсудить новый бюджет. Несколько жителей спросили, почему библиотека будет закрываться раньше по выходным, и мэр пообещал найти другое решение до конца месяца.",
  ],
  [
    "ukr",
    "uk",
    "Ukrainian",
    "Міська рада зібралася у вівторок увечері, щоб обговорити новий бюджет. Кілька мешканців запитали, чому бібліотека зачинятиметься раніше у вихідні, і мер пообіцяв знайти інше рішення до кінця місяця.",
  ],
  [
    "ces",
    "cs",
    "Czech",
    "Městské zastupitelstvo se sešlo v úterý večer, aby projednalo nový rozpočet. Několik obyvatel se ptalo, proč bude knihovna o víkendech zavírat dříve, a starosta slíbil, že do konce měsíce najde jiné řešení.",
  ],
  [
    "cmn",
    "zh",
    "Chinese",
    "市议会星期二晚上开会讨论新的预算。几位居民问为什么图书馆周末要提前关门，市长承诺在月底之前找到另一个解决办法。",
  ],
  [
    "jpn",
    "ja",
    "Japanese",
    "市議会は火曜日の夜に新しい予算について話し合うために集まりました。何人かの住民は、なぜ図書館が週末に早く閉まるのかと質問し、市長は月末までに別の解決策を探すと約束しました。",
  ],
  [
    "arb",
    "ar",
    "Arabic",
    "اجتمع مجلس المدينة مساء الثلاثاء لمناقشة الميزانية الجديدة. وسأل عدد من السكان عن سبب إغلاق المكتبة في وقت مبكر خلال عطلة نهاية الأسبوع، ووعد رئيس البلدية بالبحث عن حل آخر قبل نهاية الشهر.",
  ],
];

describe("language-detect", () => {
  it.each(paragraphs)("recognises a paragraph of %s (%s, %s) confidently", async (iso6393, iso6391, name, text) => {
    const { output, summary } = await detect(text);
    expect(output).toMatchObject({ iso6393, iso6391, name });
    expect(output.confidence).toBeGreaterThan(0.6);
    expect(output.confidence).toBeLessThanOrEqual(1);
    expect(summary).toContain(`The text is ${name} (${iso6391})`);
  });

  it("calls ordinary English English, not Scots as plain franc does", async () => {
    const { output } = await detect("Please send me the report by Friday afternoon.");
    expect(output.iso6393).toBe("eng");
    expect(output.alternatives.map((a) => a.iso6393)).not.toContain("sco");
  });

  it("lists the closest other languages with lower confidence", async () => {
    const [, , , portuguese] = paragraphs[5];
    const { output } = await detect(portuguese);
    expect(output.alternatives).toHaveLength(3);
    expect(output.alternatives[0].iso6393).toBe("spa");
    for (const alternative of output.alternatives) expect(alternative.confidence).toBeLessThan(output.confidence);
  });

  it("grows more confident as the text grows, long texts included", async () => {
    const [, , , english] = paragraphs[0];
    const long = [
      english,
      "Officials said the proposal would save money, but librarians warned that students rely on the reading rooms on Saturdays.",
      "A final vote is expected next week, after a public hearing where anyone who lives in the city may speak for three minutes.",
      "The council also approved repairs to two bridges and a plan to plant four hundred trees along the river before winter.",
    ]
      .join(" ")
      .repeat(4);
    const short = await detect("The council met on Tuesday.");
    const paragraph = await detect(english);
    const article = await detect(long);
    expect([short, paragraph, article].map((d) => d.output.iso6393)).toEqual(["eng", "eng", "eng"]);
    expect(short.output.confidence).toBeLessThan(paragraph.output.confidence);
    expect(article.output.confidence).toBeGreaterThan(0.9);
  });

  it("is not confident about a short phrase", async () => {
    const { output } = await detect("Hallo Welt, wie geht es dir?");
    expect(output.iso6393).toBe("deu");
    expect(output.confidence).toBeLessThan(0.6);
  });

  it.each([["ok"], ["12345 67890 !!!"], ["Hi there"]])(
    "answers 'und' with no confidence for %j, too short to tell",
    async (text) => {
      const { output, summary } = await detect(text);
      expect(output).toEqual({ iso6393: "und", iso6391: null, name: "Undetermined", confidence: 0, alternatives: [] });
      expect(summary).toMatch(/too short/);
    },
  );

  it("answers 'und' for a script none of its languages uses", async () => {
    const { output, summary } = await detect("ދިވެހިރާއްޖޭގެ ޖުމްހޫރިއްޔާ ދިވެހިރާއްޖޭގެ");
    expect(output.iso6393).toBe("und");
    expect(summary).toMatch(/script/);
  });

  it("reports progress and one franc call", async () => {
    const { ctx } = await detect(paragraphs[0][3]);
    expect(ctx.providerRequests).toEqual([
      expect.objectContaining({ provider: "franc", latencyMs: expect.any(Number) }),
    ]);
    // At least one step between start and finish, never going back.
    expect(ctx.progressReports.length).toBeGreaterThan(0);
    expect(ctx.progressReports.every((p) => p > 0 && p < 100)).toBe(true);
    expect(isNonDecreasing(ctx.progressReports)).toBe(true);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const signal = abortedSignal();
    await expect(languageDetect.run({ text: paragraphs[0][3] }, recordingContext(signal))).rejects.toBe(signal.reason);
  });
});
